<%
    def fact(k):
        if k <= 1:
            return 1
        return k * fact(k - 1)
    def outer(x):
        y = x * 2
        def inner(z):
            return y + z
        return inner(1)
    def noret():
        pass
    def mk(nm, suffix="_t"):
        return nm + suffix
    acc = []
    def push(v):
        acc.append(v)
    push(1); push(2)
    def make_adder(k):
        return lambda v: v + k
%>${fact(25)} ${outer(5)} ${noret()} ${mk("a")} ${mk("b", suffix="_u")} ${acc}
${[fact(i) for i in range(6)]} ${make_adder(3)(4)} ${list(map(mk, names))}
<%!
    import math
    from math import floor, ceil as up
    TABLE = [i * i for i in range(5)]
    def block_size(n, cap=256):
        size = 1
        while size < n and size < cap:
            size *= 2
        return size
    def uses_table(k):
        return TABLE[k] + helper(k)
    def helper(k):
        return k * 100
%>\
<%
    import math as m
%>${block_size(5)} ${block_size(1000)} ${block_size(1000, cap=64)} ${uses_table(3)} ${TABLE} ${block_size(n)}
${floor(2.5)} ${up(2.1)} ${m.sqrt(2)} ${math.log(8, 2)} ${math.gcd(12, 18)} ${math.factorial(25)} ${math.isqrt(10 ** 20)} ${math.floor(-0.5)} ${m.pi * 2 == m.tau} ${math.hypot(3, 4)} ${math.log2(1024)} ${math.isnan(math.nan)} ${math.inf} ${math.trunc(-2.7)} ${math.fabs(-3)} ${math.pow(2, 10)} ${math.ceil(2 ** 70)} ${math.e}
