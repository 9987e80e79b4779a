## The enclosing function reads scale too: the body deleting it makes it the body's unbound local.
<%def name="c()">[${caller.body()}]</%def><%call expr="c()">${scale}<% del scale %>z</%call> ${scale}
