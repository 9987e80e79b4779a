<%
    code = """int a;
int b;"""
%>
${code}
