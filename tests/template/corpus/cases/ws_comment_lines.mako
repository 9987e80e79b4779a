a
## a comment
b ## not at start? this stays
  ## indented comment
c
