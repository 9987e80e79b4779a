% for name, value in pairs:
#define ${name.upper()} ${value}
% endfor
