<%def name="f()">
% if False:
${no_such_name}
% endif
f</%def>${f()}
