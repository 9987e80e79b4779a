${n | (lambda s: s * 2)}
