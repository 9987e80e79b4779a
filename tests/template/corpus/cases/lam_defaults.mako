<% f = lambda a, b=10: a + b %>${f(1)} ${f(1, 2)}
