<%def name="d(a)"><%block>${a}<% del a %></%block></%def>${d(1)}
