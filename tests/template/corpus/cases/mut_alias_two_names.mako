<%
    a = [1, 2]
    b = a
    b.append(3)
    c = {"k": a}
    c["k"].extend([4, 5])
    a += [6]
    d = {}
    e = d
    e["x"] = a
    e["x"].insert(0, 0)
    t = (a, "fixed")
    t[0].append(7)
%>${a} ${b} ${c} ${d} ${t}
${a is b} ${a == list(a)} ${a is list(a)} ${d is e} ${len(c["k"])}
