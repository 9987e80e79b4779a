## Nor does such a def see the body's arguments: a NameError in Mako.
<%def name="wrap(m)">[${caller.body(k=m)}]</%def>\
<%def name="outer(p)"><%call expr="wrap(5)" args="k"><%def name="e()">${p}, ${k}</%def>${e()}</%call></%def>\
${outer(8)}
