${sorted(set(names) | {"w"})} ${sorted(set([1, 2, 3]) & {2, 3, 4})} ${len(set("aabbc"))}
