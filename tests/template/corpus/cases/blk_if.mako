<%
    if n > 3:
        kind = "big"
    else:
        kind = "small"
%>
${kind}
