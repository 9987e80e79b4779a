${(lambda: no_such_name)() if False else 1}
