## The right operand of % that is no tuple is one argument, a dict too; a mapping (a list too)
## leaves nothing "not converted".
${'%s' % {1: 2}} ${'hello' % [1]} ${'hello' % {'a': 1}} ${'%s %(a)s' % {'a': 1}} ${'%s' % [1, 2]} ${'%s' % (1,)}
