${", ".join("a%d" % i for i in range(n))}
