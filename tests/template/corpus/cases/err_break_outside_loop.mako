## Python refuses a break outside a loop when the template is compiled, even where it never runs.
% if False:
<% break %>
% endif
