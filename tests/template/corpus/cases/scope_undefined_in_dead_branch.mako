## Mako takes the names a function reads from the context when it starts: with strict_undefined a
## missing one fails the render even where it is never read.
% if False:
${no_such_name}
% endif
never
