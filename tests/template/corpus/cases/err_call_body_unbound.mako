## A <%call> body is a function of its own in Mako: the name it assigns is its local all through
## it, so reading it before the assignment is an UnboundLocalError, not the enclosing value.
<%def name="f()">${caller.body()}</%def>\
<% x = 1 %>\
<%call expr="f()">${x}<% x = 2 %>${x}</%call>
