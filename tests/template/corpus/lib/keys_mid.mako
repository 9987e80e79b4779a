<%inherit file="keys_base.mako"/>
mid: ${sorted(k for k in context.keys() if k in ('parent', 'next', 'local', 'self'))} ${context.get('parent') is None} ${context.get('next') is None} ${context['parent'] is not None}
${next.body()}
