## <%doc> comments out everything up to </%doc>; <%text> writes everything up to </%text> as it is.
a<%doc>
% if x:
${nothing} ## not read
</%doc>b
<%doc>one line</%doc>\
% for i in range(2):
<%text>${i} is not evaluated
% for nor is this
<%def name="x()">
</%text>${i}
% endfor
  <%doc>x</%doc>
<%text>back\
slash</%text>|<%doc>${1/0}</%doc>|${3}
