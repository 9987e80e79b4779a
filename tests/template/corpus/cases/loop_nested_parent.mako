% for i in range(2):
% for j in range(2):
${loop.parent.index}.${loop.index}
% endfor
% endfor
