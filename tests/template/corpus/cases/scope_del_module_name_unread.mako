<%! K = 3 %>
% if False:
<% del K %>
% endif
${K}
