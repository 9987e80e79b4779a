## Python's str whitespace and line boundaries by code point: the ASCII separators \x1c-\x1f count
## as whitespace (and \x1c-\x1e as line breaks), and so do NEL, the no-break and ideographic
## spaces, U+2000-U+200A and the line and paragraph separators; U+200B does not.
<% spaces = '\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000' %>\
% for c in spaces + '\u200b\x1b_':
${'%04x' % ord(c)} ${c.isspace()} ${repr(('[' + c + 'a' + c + ']').strip('[]').strip())} ${len(('x' + c + 'y').split())} ${len(('x' + c + 'y').splitlines())}
% endfor
${repr(('\u3000a\u2003b  c\x1f' + spaces).split())} ${repr(' a\u3000b c '.split(None, 1))} ${repr(' a\u3000b c '.rsplit(None, 1))}
${repr('a\x1cb\x1dc\x1ed\x85e\u2028f\u2029g\r\nh\x1fi'.splitlines())} ${repr('a\x1cb\r\n\u2029'.splitlines(True))}
${repr(spaces.strip())} ${repr(spaces.lstrip() + '|')} ${repr('|' + spaces.rstrip())} ${spaces.isspace()} ${''.isspace()}
${repr('éaé'.strip('é'))} ${repr('xéyé'.lstrip('éx'))} ${repr('aé中中'.rstrip('中'))} ${repr('中a'.strip('中a'))}
