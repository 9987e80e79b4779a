% if ctype == "double":
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
% endif
${ctype} f(${ctype} v) { return v * ${"%.1f" % scale}; }
