<%! import math
K = 3 %>\
<%
x = 1  # a comment after code
y = [1,  # inside brackets
     2]
if x:  # on a compound statement's line
    z = "a # not a comment"
%>\
${K} ${x} ${y} ${z}
<%   a = 1
b = 2
%>${a}${b}
<%
    c = 3
    if c:
        d = 4
%>${c}${d}
