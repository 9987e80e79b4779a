${ctype.startswith("fl")} ${ctype.endswith(("at", "x"))} ${"abc".startswith("b", 1)}
