${callable(twice)} ${callable(n)} ${hasattr(ctype, "upper")}
