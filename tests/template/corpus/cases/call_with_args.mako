<%def name="loop_over(items)">
% for it in items:
${caller.body(v=it)}\
% endfor
</%def>
<%call expr="loop_over(names)" args="v">
item ${v}
</%call>
