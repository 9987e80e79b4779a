<%namespace name="util" file="util.mako"/>
${util.decl("float", "a")}
${util.twice_str("q")}
