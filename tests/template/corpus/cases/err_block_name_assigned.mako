## A name a block assigns counts as the enclosing function's too (Mako): read there, never
## assigned there, it is unbound, even with a global of that name.
<%block><% n = 2 %>${n}</%block>${n}
