<%
    xs = []
    for nm in names:
        xs.append(nm + "_dev")
%>
${", ".join(xs)}
