<% f = lambda: "x" %>${f()}
