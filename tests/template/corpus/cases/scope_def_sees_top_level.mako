## The defs the top level calls by name see the names its <% %> blocks assigned (Mako's __M_locals,
## as they were after the last block), and so do the defs those call; a def's own assignment is
## its own local.
<% x = 1 %>\
<%def name="f()">f${x}-${g()}</%def>\
<%def name="g()">g${x}</%def>\
<%def name="h()"><% y = x * 10 %>h${y}</%def>\
${f()} ${h()}
<% x = 2 %>\
${f()} ${capture(g)}
% for x in [7]:
${f()}
% endfor
<%call expr="f()">${x}</%call>
