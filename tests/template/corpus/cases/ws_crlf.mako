a
% if flag:
b
% endif
c
