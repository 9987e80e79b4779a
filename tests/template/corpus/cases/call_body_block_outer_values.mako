## An anonymous block in a <%call> body is defined beside the body's function in Mako, not in it:
## a name the body assigns is, in the block, the enclosing code's (q is 1 there, not 2).
<%def name="wrap(m)">[${caller.body(k=m)}]</%def>\
<% q = 1 %>\
<% z = 3 %>\
<%call expr="wrap(4)" args="k">\
<% q = 2 %>q=${q} <%block>q=${q} z=${z} n=${n}</%block></%call>
<%def name="inner(p)"><%call expr="wrap(5)" args="k"><%block>p=${p}</%block> k=${k}</%call></%def>\
${inner(8)}
