<%
    w = 8
    name = "k"
    lines = [f"{i}: {v:.2f}" for i, v in enumerate([1.5, 2.25])]
    tbl = {"a": 1}
    msg = f'{tbl["a"]} {{literal}} {"nested"} {f"{w}"}'
    raw = rf"\n{w}"
    doc = """first
second 'quoted' "too"
"""
    s2 = '''it's'''
%>${f"{name!r} {name:>4}|{w:#06x}|{w:b}"} ${lines} ${msg} ${raw} ${len(doc.splitlines())} ${s2} ${r"a\tb"}
${f"{3.14159:.3}" f"-{2 ** 70:,}"} ${f"{'x' * 3}" + "!"} ${F"{ctype}*"} ${f"{mapping['a'] + 1:+d}"} ${f"{[1, 2]}" + f"{(1,)}"} ${f"{n}{n}"} ${f"{scale!r:>6}|{flag}|{None}"}
<%def name="wrap(tag, n=1)">\
<${tag} n="${n}">${caller.body(k=n * 2)}</${tag}>\
</%def>\
<%local:wrap tag="div" n="${n + 1}" args="k">[${k}]</%local:wrap>
<%self:wrap tag="s${ctype}pan${'!'}" args="k">${k}</%self:wrap>
<% it = iter([1, 2]); xs = [10]; jt = iter(xs); xs.append(20) %>${next(it)} ${next(it)} ${next(it, "done")} ${list(jt)} ${next(jt, None)}
${type(1.5).__name__} ${type(None).__name__} ${type({1}).__name__} ${type(()).__name__} ${type(True) is bool} ${type(3) == int} ${int} ${str} ${type(2 ** 80).__name__}
${getattr("abc", "upper")()} ${getattr(3, "nope", "dflt")} ${hasattr(mapping, "items")} ${hasattr(3, "x")} ${callable(int)} ${isinstance(3, int)} ${int("7") + 1} ${[type(x).__name__ for x in (1, "a", [], {}, (), None, True, 2.0)]}
<% kt = iter("abc"); first = next(kt) %>${first}
% for ch in kt:
${ch}
% endfor
${list(kt)} ${sorted(map(str, [3, 1]))} ${list(map(int, ["4", "5"]))}
