<%
    k = 1
    while k < 100:
        k *= 3
%>
${k}
