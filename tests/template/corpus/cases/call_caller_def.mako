<%def name="table()">
${caller.header()}
${caller.body()}
</%def>
<%call expr="table()">
<%def name="header()">H</%def>
B
</%call>
