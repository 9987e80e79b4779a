## An anonymous block renders where it stands, as a closure: it reads the enclosing function's
## variables (a loop's, a def's), its own assignments are its own, and it can be filtered.
<% x = 'top' %>\
<%block>x is ${x}</%block>
% for i in range(3):
<%block filter="trim">  ${i}:${loop.index}<% y = i * 10 %>:${y}  </%block>
% endfor
<%def name="f(a)"><% b = a + 1 %><%block filter="h"><${a},${b}></%block></%def>\
${f(1)} ${f(5)}
<%block><% x = 'inner' %>${x}</%block> ${x}
<%block filter="h"><b><% return %>lost</%block>|
