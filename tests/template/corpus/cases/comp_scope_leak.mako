<% i = 100 %>${[i for i in range(3)]} ${i}
