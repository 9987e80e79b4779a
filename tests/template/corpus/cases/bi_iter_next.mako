<% it = iter(names) %>${next(it)} ${next(it)}
