${int("42")} ${int(3.9)} ${int(-3.9)} ${float("1.5")} ${float(2)} ${str(5)} ${int("ff", 16)} ${bool(0)} ${bool("x")}
