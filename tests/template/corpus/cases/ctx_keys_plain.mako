## A template that inherits nothing: neither `parent` nor `next` in its context; context.get and
## context[] fall back on Python's builtins, as Mako's do.
${sorted(context.keys())} ${context.get('parent', 'none')} ${context.get('next', 'none') is None}
${context.get('len')([1, 2])} ${context['sorted']('cab')} ${context.get('nosuchname', 7)} ${context['n']}
