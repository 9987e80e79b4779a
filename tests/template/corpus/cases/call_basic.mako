<%def name="wrap()">
{
${caller.body()}
}
</%def>
<%call expr="wrap()">
  inner
</%call>
