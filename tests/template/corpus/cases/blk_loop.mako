<%
    total = 0
    for i in range(n):
        total += i
%>
${total}
