## Mako's control line ends at the first ':' followed by blanks and a '#': the f-string is cut there.
% if f'{n: #5x}':
x
% endif
