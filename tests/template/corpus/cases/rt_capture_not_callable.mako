${capture(n)}
