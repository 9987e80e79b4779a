<%
    def clamp(v, lo, hi):
        return max(lo, min(v, hi))
%>
${clamp(15, 0, 10)} ${clamp(-3, 0, 10)}
