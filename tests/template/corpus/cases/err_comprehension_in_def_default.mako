## Mako refuses a comprehension in a def's default (1.3.10: UnboundLocalError on range, 1.4.3: NameError).
<%def name="f(a=[i for i in range(2)])">${a}</%def>${f()}
