## The base of the <%block> corpus cases: its blocks render here unless a child overrides them.
<html>
<title><%block name="title">base title</%block></title>
<%block name="header" filter="trim">
    <h1>${self.title()}</h1>
</%block>
<%block name="content">base content</%block>
<%block>anonymous in base ${n}</%block>
${next.body()}\
<%block name="footer">base footer</%block>
</html>
