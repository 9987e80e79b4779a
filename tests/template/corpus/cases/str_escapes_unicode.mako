## Python's escapes in string literals: \u, \U, \x (code points, written as UTF-8), octal, \a \b \f \v
${"\u00e9t\u00e9"} ${"\x41\xe9"} ${"\101\102" + "\0121"} ${len("\U0001F600")} ${"\U0001F600"}
${"\a\b\f\v" == chr(7) + chr(8) + chr(12) + chr(11)} ${repr("\0")} ${repr("\x7f\t")} ${ord("\777")}
${'\u00c5ngstr\u00f6m'.upper()} ${f"\u00e9{1 + 1}\x41"} ${"""\u0394\
\u03b1"""} ${r"\u00e9"} ${"\q"}
<% s = "caf\xe9" %>${s} ${len(s)} ${s[-1]}
