% for x in names:
<%include file="with_args.mako" args="v=x * 2"/>
% endfor
