<%def name="f(**kw)">${kw}</%def>${f(context=1)}
