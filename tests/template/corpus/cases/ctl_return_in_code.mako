## <% return %> ends the def (whose value is then what it returned) or the top level.
<%def name="f()">f-text<% return 5 %>never</%def>\
<%def name="g()">g-text<% return %></%def>\
<%def name="h(x)">
% for i in range(x):
${i}
% if i == 1:
<% return "early" %>
% endif
% endfor
</%def>\
[${f()}] [${g()}] [${h(5)}] [${h(1)}]
before
<% return %>
after
