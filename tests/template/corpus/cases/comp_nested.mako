${[(i, j) for i in range(2) for j in range(i + 1)]}
