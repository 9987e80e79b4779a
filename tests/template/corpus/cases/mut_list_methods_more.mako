<%
    xs = [5, 6, 7, 8, 9]
    first = xs.pop(0)
    last = xs.pop()
    xs.insert(-1, 70)
    xs.insert(100, 99)
    xs.insert(-100, 1)
    xs.remove(70)
    del xs[1]
    ys = xs.copy()
    ys.append("copy")
    zs = []
    zs.extend("ab")
    zs.extend(zs)
    zs[-1] = "B"
    ws = [1, 2]
    ws.clear()
    stack = []
    for tok in "1 2 + 3 *".split():
        if tok.isdigit():
            stack.append(int(tok))
        else:
            r = stack.pop()
            l = stack.pop()
            stack.append(l + r if tok == "+" else l * r)
%>${first} ${last} ${xs} ${ys} ${zs} ${ws} ${stack}
${[1, 2, 1].index(1, 1)} ${[1, 2, 1].count(1)} ${(1, 2, 2).count(2)} ${(3, 4).index(4)}
