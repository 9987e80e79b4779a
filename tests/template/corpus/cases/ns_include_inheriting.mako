before
<%include file="chain_mid.mako"/>
after
