## Mako writes ${a, b} as str(a, b): a trailing comma alone is str(a).
${'a',} ${n,} ${(1, 2)} ${n, | h}
