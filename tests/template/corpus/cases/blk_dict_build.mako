<%
    d = {}
    d["z"] = 1
    d["a"] = 2
    d.update({"m": 3})
%>
${list(d.keys())} ${d}
