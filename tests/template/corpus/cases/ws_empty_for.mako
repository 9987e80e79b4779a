before
% for e in empty:
never
% endfor
after
