<%namespace file="util.mako" import="*"/>
${decl("double", "c")} ${twice_str("ab")}
