<% k = 3 %><% f = lambda v: v * k %>${[f(i) for i in range(3)]}
