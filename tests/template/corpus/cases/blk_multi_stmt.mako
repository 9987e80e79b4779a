<%
    a = 1
    b = a + n
    c = [a, b]
%>
${a} ${b} ${c}
