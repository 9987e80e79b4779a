${context.get("n")} ${context.get("missing", "dflt")} ${context.get("missing")}
