## context.keys(), context.get() and context[] of each template in a chain of three: `parent` where
## a template inherits, `next` where it is inherited.
<%inherit file="keys_mid.mako"/>
<%def name="d()">def: ${'parent' in context.keys()} ${'next' in context.keys()}</%def>
child: ${sorted(k for k in context.keys() if k in ('parent', 'next', 'local', 'self'))} ${context.get('parent') is None} ${context.get('next') is None} ${context['parent'] is not None}
${d()}
