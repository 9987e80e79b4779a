<%def name="a()">A</%def>
<%def name="b()">
B
</%def>
${a()}${b()}|
