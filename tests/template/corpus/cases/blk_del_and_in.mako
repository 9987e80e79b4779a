<%
    d = {"a": 1, "b": 2}
    del d["a"]
%>
${"a" in d} ${"b" in d}
