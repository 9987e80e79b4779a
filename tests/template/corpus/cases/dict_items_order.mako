${list(mapping.items())} ${list(mapping.values())}
