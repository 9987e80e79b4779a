## Format specs as CPython 3.11 writes them: no type with a precision ('g' whose exponent form starts a
## digit earlier), zeros padding grouped digits, '#' with repr's digits, 'z', a '0' flag with an align.
${format(2.5, '.0')} ${format(12.5, '.2')} ${format(9.99, '.2')} ${format(0.00001234, '.3')} ${format(1234.5, '.4')}
${format(255, '+010,')} ${format(255, '08,')} ${format(0.5, '#013_%')} ${format(-5, ' #08,')} ${format(255, '#012_x')} ${format(1234.5, '012,.1f')}
${format(65, '3c')} ${format(1e16, '#')} ${format(1 + 2j, '#')} ${format(1j, '#')} ${format(-0.0, 'z')} ${format(-0.04, 'z.1f')} ${format(-0.04, 'z.1e')}
${format('x', '<05')} ${format(5, '=07g')} ${format(5, '<05')} ${'{:*^+09.2f}'.format(-1.5)} ${f'{-0.0:z}'}
