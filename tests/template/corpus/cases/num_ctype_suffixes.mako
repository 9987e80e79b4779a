% for v in [1.0, 0.5, 1e-7, 123.0]:
${repr(v)}f
% endfor
