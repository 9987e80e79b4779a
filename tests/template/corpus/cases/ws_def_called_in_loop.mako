<%def name="decl(t, name)">
${t} ${name};
</%def>
% for nm in names:
${decl(ctype, nm)}\
% endfor
end
