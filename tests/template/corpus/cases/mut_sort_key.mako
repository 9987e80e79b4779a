<%
    xs = [("b", 3), ("a", 3), ("c", 1), ("d", 2)]
    xs.sort(key=lambda p: p[1])
    ys = list(xs)
    ys.sort(key=lambda p: p[1], reverse=True)
    zs = ["bb", "a", "ccc", "dd"]
    zs.sort(key=len)
    ws = [3, 1, 2]
    ws.sort(reverse=True)
    vs = [2.5, -1, 0, True]
    vs.sort()
    names2 = list(names)
    names2.reverse()
    by_value = sorted(mapping.items(), key=lambda kv: -kv[1])
%>${xs}
${ys}
${zs} ${ws} ${vs} ${names2} ${names} ${by_value}
