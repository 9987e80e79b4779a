% if n > 2 and flag:
big ${n}
% elif n == 2:
two
% else:
${"small" if x < 1 else name.upper()}
% endif
