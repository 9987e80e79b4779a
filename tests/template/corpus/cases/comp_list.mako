${[i * i for i in range(n)]}
