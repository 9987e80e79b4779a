<%! import math %>\
## math.hypot is correctly rounded in Python (C's hypot may be an ulp off): pairs over many
## magnitudes, signs, zeros, subnormals, and values near the overflow threshold.
${math.hypot(3.14159, 10.3618)} ${math.hypot(-3, 4)} ${math.hypot(0, 0)} ${math.hypot(-0.0, 2.5)}
${math.hypot(1e308, 1e308)} ${math.hypot(5e-324, 5e-324)} ${math.hypot(1e-310, 3e-310)} ${math.hypot(1e200, 1e-200)}
% for i in range(400):
<%
    x = ((i * 7919) % 1009 - 504) / 37.0 * 10.0 ** ((i % 13) - 6)
    y = ((i * 104729) % 997 + 0.5) / 91.0 * 10.0 ** ((i % 7) - 3)
%>\
${repr(math.hypot(x, y))}
% endfor
