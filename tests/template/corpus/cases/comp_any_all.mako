${any(x > 2 for x in range(n))} ${all(x > 2 for x in range(n))}
