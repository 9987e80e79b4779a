## A <%call> body of the top level is a closure that updates its __M_locals: the names its <% %>
## code assigns reach the defs the top level calls after it (not its arguments); inside a def,
## there is nothing to update.
<%def name="c()">${caller.body(k=3)}</%def>\
<%def name="d()">${[k for k in context.keys() if k in ('x', 'k')]} ${context.get('x')}</%def>\
<%def name="o()"><%call expr="c()" args="k"><% y = k %></%call>${[k for k in context.keys() if k == 'y']}</%def>\
<%call expr="c()" args="k"><% x = k %></%call>${d()} ${o()}
