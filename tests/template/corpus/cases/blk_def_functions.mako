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
