<%include file="page_defaults.mako" args="1, 2"/>
