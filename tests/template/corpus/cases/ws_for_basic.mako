% for i in range(3):
  line ${i}
% endfor
