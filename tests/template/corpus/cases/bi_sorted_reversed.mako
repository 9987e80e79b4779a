${sorted([3, 1, 2])} ${sorted(names, reverse=True)} ${list(reversed(names))}
