% for v in [1, 5, 10]:
% if v < 3:
small ${v}
% elif v < 7:
mid ${v}
% else:
big ${v}
% endif
% endfor
