${list(map(lambda v: v + 1, range(3)))} ${list(filter(lambda v: v % 2, range(6)))}
