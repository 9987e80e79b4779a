leaf of ${ctype}
