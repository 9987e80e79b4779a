% if flag :
spaced colon
% endif
