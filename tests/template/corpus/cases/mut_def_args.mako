<%def name="add_to(xs, v)">${xs.append(v) or ""}</%def>\
<%
    acc = []
%>${add_to(acc, 1)}${add_to(acc, 2)}${acc}
<% f = lambda d, k: d.setdefault(k, len(d)) %>\
<% reg = {} %>${f(reg, "a")} ${f(reg, "b")} ${f(reg, "a")} ${reg}
% for item in [[1], [2]]:
<% item.append(0) %>${item}
% endfor
