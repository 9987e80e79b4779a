${sorted(names, key=lambda s: -ord(s))}
