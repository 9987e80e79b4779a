${1 + 1.0} ${True + 1} ${3 * "ab"} ${scale * n} ${n / 2} ${int(n / 2)}
