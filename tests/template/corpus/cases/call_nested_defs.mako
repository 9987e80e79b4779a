<%def name="outer()">
[${caller.body()}]
</%def>
<%def name="inner()">
<${caller.body()}>
</%def>
<%call expr="outer()">\
<%call expr="inner()">x</%call>\
</%call>
