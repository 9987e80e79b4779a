% for k, v in mapping.items():
${loop.index} ${k} ${v}
% endfor
