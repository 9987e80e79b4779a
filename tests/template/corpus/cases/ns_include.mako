header
<%include file="common.mako"/>
footer
