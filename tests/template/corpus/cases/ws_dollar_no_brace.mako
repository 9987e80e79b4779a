cost $5 and ${n}$
