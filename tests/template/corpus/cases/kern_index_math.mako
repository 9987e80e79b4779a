% for d in range(3):
const int i${d} = (idx / ${4 ** d}) % 4;
% endfor
