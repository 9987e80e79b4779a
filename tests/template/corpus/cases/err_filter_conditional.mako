## Mako applies a filter as text, filter(value): here it writes the function twice itself.
${'a' | twice if True else h}
