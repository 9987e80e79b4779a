<%
    out = []
    for i in range(10):
        if i % 2:
            continue
        if i > 6:
            break
        out.append(i)
    pass
%>
${out}
