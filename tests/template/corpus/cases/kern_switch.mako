switch (op) {
% for code, nm in [(0, "add"), (1, "sub"), (2, "mul")]:
case ${code}: return ${nm}(a, b);
% endfor
default: return 0;
}
