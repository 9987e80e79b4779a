<%!
    import math
%>
${math.sqrt(16.0)} ${math.pi}
