${-n} ${+n} ${--n} ${-scale} ${not n}
