<%def name="block(title)">
[${title}]
<%include file="common.mako"/>
</%def>
${block("one")}
${block("two")}
