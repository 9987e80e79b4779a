% for t in [nm.upper() for nm in names]:
${t}
% endfor
