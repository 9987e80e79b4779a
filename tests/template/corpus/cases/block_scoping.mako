<%! K = 3 %>\
## A name a block assigns is declared in the enclosing function too (Mako): outside the block it
## is no render global any more, but Python's globals (<%! %> names, builtins) still answer.
<%block><% K = 2 %><% len = 'shadowed' %>${K} ${len}</%block>
${K} ${len(names)}
## `n` in the filters of a block or a def is skipped, as Mako skips it.
<%block filter="n, h"><n></%block>
<%def name="f()" filter="n, trim">  f  </%def>[${f()}]
