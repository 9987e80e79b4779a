${"names" in context.keys()} ${"missing" in context.keys()}
