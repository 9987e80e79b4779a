## round() to negative digits: floats from their exact binary value, ties (exact multiples of five)
## to the even multiple; ints exactly, ties to even; past the range, zero or the value itself.
% for i in range(120):
<% x = ((i * 7919) % 100003 - 50000) / 37.0 * 10 ** (i % 14 - 4) %>\
${round(x, -(i % 6))} ${round(int(x), -(i % 7))}
% endfor
${round(25.0, -1)} ${round(35.0, -1)} ${round(-25.0, -1)} ${round(5.0, -1)} ${round(-4.0, -1)} ${round(0.5, -1)}
${round(1250, -2)} ${round(1350, -2)} ${round(-1250, -2)} ${round(True, -1)} ${round(2**70 + 5 * 10**20, -21)} ${round(-7, -30)}
${round(9.5e307, -308)} ${round(123.456, -400)} ${round(-123.456, -400)} ${round(1e-320, 330)} ${round(2.5e-323, 323)} ${round(123.456, 301)}
