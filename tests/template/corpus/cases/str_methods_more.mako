## istitle, casefold (ASCII), removeprefix, removesuffix, expandtabs; and a type's methods unbound.
${'Hello World'.istitle()} ${'Hello world'.istitle()} ${'1A'.istitle()} ${''.istitle()} ${'ABC'.casefold()}
${'prefix-x'.removeprefix('prefix-')} ${'x.mako'.removesuffix('.mako')} ${'a'.removesuffix('abc')} ${'ab'.removeprefix('')}
${'a\tbc\tdef\n\tx'.expandtabs()}|${'a\tb'.expandtabs(4)}|${'a\tb'.expandtabs(0)}|${'\u00e9\tb'.expandtabs(3)}
${sorted(['b', 'A', 'c'], key=str.lower)} ${str.upper('x')} ${list(map(str.strip, [' a ', 'b ']))} ${str.join('-', ['a', 'b'])}
${dict.get({'a': 1}, 'a')} ${list.index([5, 6], 6)} ${tuple.count((1, 1, 2), 1)}
