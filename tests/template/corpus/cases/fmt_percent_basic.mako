${"%d %s %r" % (n, ctype, ctype)}
