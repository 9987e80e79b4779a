## Mako compiles ${...} as Python statements: a line end outside brackets ends it.
${(1 +
 2)} ${1 +\
 2} ${
  n
} ${n
 | h} ${n |
 h} ${[1,
 2]}
