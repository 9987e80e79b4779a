<%include file="page_defaults.mako"/>
<%include file="page_defaults.mako" args="k=n * 2, label='y'"/>
