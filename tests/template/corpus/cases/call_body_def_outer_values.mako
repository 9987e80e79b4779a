## A <%def> written in a <%call> body is defined beside the body's function in Mako, not in it: it
## reads the enclosing code's variables as they are outside the body (q is 1 there, not 2), at the
## top level and in a def alike.
<%def name="wrap(m)">[${caller.body(k=m)}]</%def>\
<% q = 1 %>\
<%call expr="wrap(4)" args="k"><% q = 2 %><%def name="d()">q=${q} n=${n}</%def>${d()} k=${k} q=${q}</%call>
<%def name="outer(p)"><% q = 10 %><%call expr="wrap(5)" args="k"><% q = 20 %><%def name="e()">p=${p} q=${q}</%def>${e()} k=${k} q=${q}</%call></%def>\
${outer(8)}
