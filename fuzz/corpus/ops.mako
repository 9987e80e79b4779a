${f(1, 2, k=3)} ${mods[0]} ${mods[1](2)} ${not flag or none is None} ${1 < 2 < 3} ${"a" in name} ${-x} ${~n} ${n << 2 | 1 & 3 ^ 5}
