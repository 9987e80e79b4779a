## int() and float() of text with Unicode digits and blanks, as Python reads it.
${int("٣")} ${int("１２")} ${int("1_٣")} ${int(" ٣ ")} ${int("\u00a0-٣\u3000")} ${int("+５")} ${int("٣", 16)} ${int("0x١", 16)} ${int("0b١", 0)}
${float("٣.٥")} ${float("1e٣")} ${float("\u2003-٢٥\u2028")} ${float("１_０.５")} ${int("\u0e53\u0e52")} ${int("\U0001d7d9")}
${int("\x0b7\x0c")} ${float("\r\n2.5\t")} ${[int(d) for d in "٠١٢٣٤٥٦٧٨٩"]}
