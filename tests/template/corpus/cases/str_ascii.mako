## ascii(), !a and %a escape what is not ASCII, as Python's ascii().
${ascii('h\u00e9llo \u20ac \U0001F600')} ${ascii(['\u00e9', 1])} ${'{!a}'.format(text)} ${f'{text!a}'} ${'%a' % text} ${'%5a|' % 'x'}
