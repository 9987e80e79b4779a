<%
    total = 0
    for i in range(n):
        if i % 2:
            continue
        total += i
    a, b = total, [x * 2 for x in range(3) if x]
%>
${total} ${a} ${b} ${ {k: v for k, v in enumerate("ab")} }
