% if(n):
x
% endif
