${list("abc")} ${tuple([1, 2])} ${dict(a=1, b=2)} ${dict([("x", 1)])} ${list()}
