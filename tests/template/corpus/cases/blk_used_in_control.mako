<%
    sizes = [n, n * 2]
%>
% for s in sizes:
size ${s}
% endfor
