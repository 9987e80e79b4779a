<%def name="guard(cond)">
% if cond:
${caller.body()}\
% endif
</%def>
<%self:guard cond="${flag}">
guarded
</%self:guard>
