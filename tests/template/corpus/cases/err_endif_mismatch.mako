% if flag:
x
% endfor
