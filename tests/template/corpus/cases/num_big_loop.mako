<%
    f = 1
    for i in range(1, 31):
        f *= i
    fib = [0, 1]
    while len(fib) < 100:
        fib.append(fib[-1] + fib[-2])
%>30! = ${f}
fib[99] = ${fib[99]} ${fib[99] % 1000000007} ${fib[99] // fib[98]}
#define MASK64 ${"0x%016XULL" % ((1 << 64) - 1)}
% for bits in (31, 32, 63, 64, 65):
${bits}: ${(1 << bits) - 1} ${hex(1 << bits)} ${"{:#x}".format((1 << bits) - 1)}
% endfor
