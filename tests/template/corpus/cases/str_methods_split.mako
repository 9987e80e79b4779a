${"a,b,,c".split(",")} ${"a b  c".split()} ${"a-b-c".split("-", 1)} ${"a-b-c".rsplit("-", 1)}
