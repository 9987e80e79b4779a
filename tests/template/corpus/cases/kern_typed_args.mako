<%
    args = [("float", "x"), ("int", "n"), ("double", "scale")]
%>
KERNEL void k(${", ".join(t + " " + a for t, a in args)})
