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
