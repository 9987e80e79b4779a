## Mako leaves its escape names (h, u, x, trim...) out of the names a def takes from the context,
## anywhere in a filter; a def never called never evaluates them.
<%def name="f()">${{3} | {3} | trim}</%def>ok
