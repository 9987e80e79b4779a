${n}
% for n in range(2):
${n}
% endfor
