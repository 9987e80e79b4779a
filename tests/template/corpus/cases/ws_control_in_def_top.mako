<%def name="maybe(c)">
% if c:
on
% else:
off
% endif
</%def>
${maybe(True)}${maybe(False)}
