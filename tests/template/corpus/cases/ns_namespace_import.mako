<%namespace file="util.mako" import="decl"/>
${decl("int", "b")}
