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
