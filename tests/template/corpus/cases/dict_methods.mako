${mapping.get("a")} ${mapping.get("q", 0)} ${"b" in mapping} ${len(mapping)} ${sorted(mapping.items())}
