<%include file="with_args.mako" args="v=5"/>
