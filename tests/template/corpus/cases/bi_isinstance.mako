${isinstance(n, int)} ${isinstance(scale, float)} ${isinstance(ctype, str)} ${isinstance(names, (list, tuple))} ${isinstance(flag, int)}
