<% f = lambda x: x * 2 %>${f(4)}
