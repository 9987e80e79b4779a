${"key=value=x".partition("=")} ${"a.b.c".rpartition(".")}
