${repr(1)} ${repr(1.0)} ${repr(None)} ${repr([1, "a"])} ${repr((1,))} ${repr({"a": 1})}
