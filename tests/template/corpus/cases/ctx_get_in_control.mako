% if context.get("opt", None) is None:
no opt
% endif
