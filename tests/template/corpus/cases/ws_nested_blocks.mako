% for i in range(2):
% for j in range(2):
% if (i + j) % 2 == 0:
${i}${j}
% endif
% endfor
% endfor
