<%def name="kernel(n)">
% for i in range(n):
x${i} = ${scale} * ${i};
% endfor
</%def>
header ${scale}
