${list(enumerate(names))} ${list(zip(names, range(3)))} ${list(enumerate(names, 1))}
