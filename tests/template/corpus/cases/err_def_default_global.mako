## A def's defaults are evaluated when Mako loads the template: no render global is defined yet.
<%def name="f(a=n)">${a}</%def>${f()}
