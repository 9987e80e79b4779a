<%def name="shout(x)" filter="trim, twice">
   ${x}!
</%def>\
<%def name="quiet()" filter="h">
<b>${"&"}</b>
</%def>\
[${shout("hey")}] [${quiet()}]
