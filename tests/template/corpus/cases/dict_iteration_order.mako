% for k in mapping:
${k}=${mapping[k]}
% endfor
