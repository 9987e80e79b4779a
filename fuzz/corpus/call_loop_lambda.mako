<%def name="wrap(items)">
% for it in items:
[${caller.body(v=it)}|${loop.index}${loop.last}]
% endfor
</%def>
<%call expr="wrap([1, 2])" args="v">
${(lambda q, r=2: q * r)(v)} ${sorted([3, 1], key=lambda z: -z)}
</%call>
${context.get("zz", UNDEFINED) is UNDEFINED} ${0x_ff if 0 else 0o17 + 0b1_0}
