<%def name="item(x, suffix='')">[${x}${suffix}]</%def>\
<%def name="row(xs)">
% for x in xs:
${item(x)}\
% endfor
</%def>\
a${capture(item, 3)}b ${len(capture(item, 12))}
${capture(item, x='kw', suffix='!')}
<% joined = ', '.join(capture(item, n) for n in names) %>${joined.upper()}
${repr(capture(lambda: 5))}
${capture(row, names).strip()}|
${capture(twice, text)}|
