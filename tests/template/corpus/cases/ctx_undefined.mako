${UNDEFINED is UNDEFINED} ${context.get("missing", UNDEFINED) is UNDEFINED}
