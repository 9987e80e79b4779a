${min(3, 1, 2)} ${max([4, 9, 2])} ${min(names)} ${max(names, key=len)} ${min([], default=7)}
