<%include file="no_such_file.mako"/>
