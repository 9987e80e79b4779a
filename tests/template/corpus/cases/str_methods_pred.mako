${"abc".isalpha()} ${"123".isdigit()} ${"a1".isalnum()} ${"  ".isspace()} ${"Ab".isupper()} ${"ab".islower()} ${"x".isidentifier()}
