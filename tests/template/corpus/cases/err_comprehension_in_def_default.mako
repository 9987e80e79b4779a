## Mako reads the loop variable of a comprehension in a def's default as a name of the context.
<%def name="f(a=[i for i in range(2)])">${a}</%def>${f()}
