% for i in range(4):
${i} ${loop.even} ${loop.odd} ${loop.first}
% endfor
