<%def name="f(a=2 ** 3)">${a}</%def>${f(1)}
