## Float // and % as CPython's float_divmod (the quotient snapped from fmod's exact remainder);
## a negative float to a non-integral power is complex.
${4 // 0.2} ${4 % 0.2} ${divmod(226, float('-inf'))} ${0.0 % -1.0} ${-0.0 // 1} ${divmod(-7.5, 2)} ${1 // 0.1} ${-1e-300 % 1.0}
${(-8.0) ** (1 / 3)} ${(-2.0) ** 0.5} ${(-2) ** 0.5} ${(-2.0) ** 2} ${2.0 ** -1}
