## Mako's control lines and ## comments go on over a backslash at their end, and it reads nothing
## after an end keyword.
% if n \
  > 1:
yes
% endif
## a comment \
still the comment
% for i in range(2):
${i}
% endfor  anything ${here}
% if n :  # a comment after the colon
spaced colon
% endif anything
