% for nm in names:
${loop.index}:${nm}
% endfor
