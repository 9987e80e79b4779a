${len(names)} ${list(range(5))} ${list(range(2, 10, 3))} ${list(range(5, 0, -2))}
