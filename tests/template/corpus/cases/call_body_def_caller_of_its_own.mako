## A <%def> written in a <%call> body and invoked by a <%call> of its own: its `caller` is that
## <%call> (one level deep; two levels deep Mako binds it otherwise, which kjarni does not follow).
<%def name="wrap(m)">[${caller.body(k=m)}]</%def>\
<%call expr="wrap(1)" args="k"><%def name="d(m)">(${caller.body(j=m)})</%def><%call expr="d(2)" args="j">${j}</%call></%call>
