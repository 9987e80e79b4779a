## Mako's scan of a def statement misses its *args: the name read in the body must be defined.
<% def g(*rest): return rest %>${g(1)}
