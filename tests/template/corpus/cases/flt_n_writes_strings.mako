## After the n filter nothing turns the value into a str: Mako writes strings only, and its x, u and
## trim filters call str methods (h and str take anything).
${'a' | n} ${5 | n, h} ${5 | n, str} ${'a' | n, twice} ${5 | h}
