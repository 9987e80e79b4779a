<%
    grid = [[0] * 3 for _ in range(3)]
    for i in range(3):
        grid[i][i] = i + 1
    grid[0][-1] = -1
    shared_row = [0] * 2
    rows = [shared_row, shared_row]
    rows[0][0] = 9
    tree = {"a": {"b": []}}
    tree["a"]["b"].append("leaf")
    tree["a"].setdefault("c", []).append(1)
    tree["a"].setdefault("c", []).append(2)
    counts = {}
    for ch in "abracadabra":
        counts[ch] = counts.get(ch, 0) + 1
    hist = {}
    for w in ["x", "y", "x"]:
        hist.setdefault(w, 0)
        hist[w] += 1
    nums = [1, 2, 3]
    nums[1] *= 10
    nums[-1] += 5
%>${grid} ${rows} ${tree}
${counts} ${hist} ${nums}
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
