<%namespace name="s" file="self_ns.mako"/>
<%namespace name="u" file="util.mako" import="twice_str"/>
<%def name="show(v)">${s.outer(v)} ${u.decl(ctype, "w")} ${twice_str(v)}</%def>
% for i in range(2):
${show(i)}
% endfor
