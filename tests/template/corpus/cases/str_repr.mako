${repr("a'b")} ${repr('a"b')} ${repr("x\ny")} ${repr(text)}
