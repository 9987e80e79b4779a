% if False:
<% zz = 1 %>
% endif
${zz}
