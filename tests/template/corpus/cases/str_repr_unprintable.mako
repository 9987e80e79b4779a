## repr escapes what Python's str.isprintable() refuses: every Latin-1 character (the C1 controls,
## the no-break space and the soft hyphen escaped, the others as they are), and format, separator
## and private-use characters beyond it.
${repr(''.join(chr(c) for c in range(0x80, 0x100)))}
% for c in [0x061C, 0x1680, 0x180E, 0x2000, 0x200B, 0x200F, 0x2028, 0x2029, 0x202F, 0x205F, 0x2065, 0x206F, 0x3000, 0xE000, 0xF8FF, 0xFEFF, 0xFFF9, 0xFFFB, 0xF0000, 0x10FFFD, 0xE9, 0x4E2D, 0x1F600, 0x2030, 0x2070, 0xFFFC]:
${repr(chr(c))} ${repr('a' + chr(c) + "'")} ${[chr(c)]}
% endfor
