${type(n).__name__} ${type(ctype).__name__} ${type(names).__name__}
