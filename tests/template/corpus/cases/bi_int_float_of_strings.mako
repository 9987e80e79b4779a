## int() and float() of strings as Python reads them: signs, blanks, underscores, prefixes, base 0,
## inf / infinity / nan in any case, out-of-range exponents.
${int("1_000")} ${int(" -7 ")} ${int("+5")} ${int("0x1f", 16)} ${int("0x1f", 0)} ${int("0b101", 0)} ${int("0o17", 0)} ${int("00", 0)} ${int("0x_1f", 16)} ${int("-0X1F", 0)} ${int("z", 36)}
${float("1e3")} ${float("1e400")} ${float("-1e400")} ${float("1e-400")} ${float("1_0.5")} ${float("+1.5")} ${float(" .5 ")} ${float("5.")}
${float("Infinity")} ${float("-iNF")} ${float("+nan")} ${float("1e1_0")} ${float("1" * 400)} ${float("0." + "0" * 400 + "1")} ${float("2.5e-324")}
