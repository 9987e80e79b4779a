(\
% for nm in names:
${nm}${"" if loop.last else ", "}\
% endfor
)
