<%
    a = {3, 1, 2}
    b = set([2, 3, 4])
    a.add(10)
    a.add(1)
    a.discard(99)
    c = {x % 4 for x in range(20)}
    s = set("hello")
    e = set()
    e |= {5}
    t = {(1, 2), (1, 2), (0, 1)}
    u = set(names)
    u.update(["w"], "q")
    u.remove("x")
%>${sorted(a | b)} ${sorted(a & b)} ${sorted(a - b)} ${sorted(a ^ b)} ${sorted(c)} ${len(s)} ${"l" in s} ${"z" not in s}
${e} ${set()} ${sorted(t)} ${sorted(a, reverse=True)} ${max(a)} ${min(b)} ${sum(a)} ${a == {1, 2, 3, 10}}
${b.issubset({1, 2, 3, 4})} ${sorted(a.union([7], (8,)))} ${len(a.intersection(b))} ${isinstance(a, set)} ${sorted(u)} ${bool(set())} ${any({0, 1})} ${all({0, 1})}
${len({1, 1.0, True})} ${sorted(set(mapping))} ${sorted({k for k in range(n)})} ${{"one"}}
<%
    d = {1: "one", (2, "x"): "tuple", None: "none", 2.5: "float"}
    d[True] = "true"
    d[1.0] = "float one"
    d[(2, "x")] += "!"
    inv = {v: k for k, v in [("a", 1), ("b", 2)]}
    grid = {(i, j): i * j for i in range(2) for j in range(2)}
    flags = {False: "off", True: "on"}
%>${d} ${d[1]} ${d[None]} ${inv} ${inv[2]}
${grid} ${grid[(1, 1)]} ${sorted(inv)} ${(0, 1) in grid} ${(5, 5) in grid} ${len(d)} ${flags[1 > 0]} ${dict([(1, "a"), (2, "b")])}
${inv.get(3, "missing")} ${list(grid.keys())[:2]} ${ {0: 1} == {0.0: 1} }
