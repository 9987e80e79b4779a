## The body's arguments are not the block's either: a NameError in Mako, though a render global of
## that name (n) exists.
<%def name="wrap(m)">[${caller.body(n=m)}]</%def>\
<%call expr="wrap(4)" args="n"><%block>${n}</%block></%call>
