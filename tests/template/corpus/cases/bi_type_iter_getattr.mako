<% it = iter([1, 2]); xs = [10]; jt = iter(xs); xs.append(20) %>${next(it)} ${next(it)} ${next(it, "done")} ${list(jt)} ${next(jt, None)}
${type(1.5).__name__} ${type(None).__name__} ${type({1}).__name__} ${type(()).__name__} ${type(True) is bool} ${type(3) == int} ${int} ${str} ${type(2 ** 80).__name__}
${getattr("abc", "upper")()} ${getattr(3, "nope", "dflt")} ${hasattr(mapping, "items")} ${hasattr(3, "x")} ${callable(int)} ${isinstance(3, int)} ${int("7") + 1} ${[type(x).__name__ for x in (1, "a", [], {}, (), None, True, 2.0)]}
<% kt = iter("abc"); first = next(kt) %>${first}
% for ch in kt:
${ch}
% endfor
${list(kt)} ${sorted(map(str, [3, 1]))} ${list(map(int, ["4", "5"]))}
