## Mako's context: context['n'], context.write(), its own names in keys(); the top level's pageargs.
<% context.write('written ') %>${context['n']} ${sorted(context.keys())} ${len(pageargs)}
<%def name="f()">a<% context.write('b') %>c</%def>${f()}|${capture(f)}
