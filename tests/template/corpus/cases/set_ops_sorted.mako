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
