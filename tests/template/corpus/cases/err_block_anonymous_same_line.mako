## Mako names an anonymous block by its line: two on one line are its CompileException.
<%block>a</%block> <%block>b</%block>
