__constant float table[${n}] = {${", ".join("{:.6f}f".format(i / n) for i in range(n))}};
