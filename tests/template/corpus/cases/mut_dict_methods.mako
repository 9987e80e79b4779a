<%
    d = dict(a=1)
    d.update([("b", 2)], c=3)
    d.update({"a": 10})
    p = d.pop("b")
    q = d.pop("zz", "none")
    d["b"] = 20
    del d["a"]
    d["a"] = 100
    e = d.copy()
    e["new"] = 1
    last = e.popitem()
    f = dict(e)
    f.clear()
    g = dict(mapping)
    g.update(z=26)
    del g["b"]
%>${d} ${e} ${f} ${p} ${q} ${last} ${list(d.items())}
${g} ${mapping} ${list(g)} ${list(g.values())}
