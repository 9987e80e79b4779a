<%def name="f(a, *args, b)">${a}${b}</%def>${f(1, 2)}
