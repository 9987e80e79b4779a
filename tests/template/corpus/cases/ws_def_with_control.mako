<%def name="accum(k)">
% for i in range(k):
  s += a[${i}];
% endfor
</%def>
float s = 0;
${accum(3)}
return s;
