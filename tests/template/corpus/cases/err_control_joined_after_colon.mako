% for i in range(2): \

${i}
% endfor
