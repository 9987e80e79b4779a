<%
    assert n == 4, "n must be 4"
%>
ok
