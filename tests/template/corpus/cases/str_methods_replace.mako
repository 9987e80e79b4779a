${"a.b.c".replace(".", "_")} ${"aaa".replace("a", "b", 2)}
