% for nm in names:
${loop.reverse_index} ${loop.index}
% endfor
