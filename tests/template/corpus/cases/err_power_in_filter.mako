## Mako regenerates a filter's source from Python's syntax tree, which it cannot do for '**'.
${'x' | twice(2 ** 2)}
