## A <%call> body is a function of its own in Mako: the names it assigns are its own, the
## enclosing code's are read as a closure.
<%def name="c(m)">[${caller.body(k=m)}]</%def>\
<% y = 5 %>\
<%call expr="c(1)" args="k"><% scale = 2 %>${scale}${y}${k}</%call> ${scale}
<%call expr="c(1)" args="k"><% k += 1 %>${k}</%call>
