## A <% %> block's break and continue end or skip the iteration of the % for around it (Mako's
## control lines and code blocks are one Python function).
% for i in range(6):
% if i % 2:
<% continue %>\
% endif
${i} \
<%
if i >= 4:
    break
%>\
% endfor

% for row in [[1, 2], [3, 4]]:
% for v in row:
<% if v == 2: break %>\
${v}
% endfor
% endfor
<% n = 0 %>\
% while True:
<% n += 1 %>\
% if n > 3:
<% break %>\
% endif
n=${n}
% endwhile
