${"a\nb\n".splitlines()} ${ord("A")} ${chr(66)}
