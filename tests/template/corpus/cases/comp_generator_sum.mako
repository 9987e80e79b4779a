${sum(i for i in range(10))} ${max(len(nm) for nm in names)}
