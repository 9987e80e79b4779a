% for nm in names:
${loop.index + 1}/${len(names)}
% endfor
