## Named blocks outside inheritance render where they stand (each time, in a loop), are defs of
## the template (self.name()), read the render globals rather than the top level's variables,
## and nest.
<% n2 = n * 2 %>\
<%block name="outer">[outer ${n}<%block name="inner">(inner ${len(names)})</%block>]</%block>
% for i in range(2):
<%block name="looped">looped ${n}</%block>
% endfor
again: ${self.inner()} ${self.outer()}
<%block name="filtered" filter="twice, h"><${ctype}></%block>
<%block name="early"><% return %>never</%block>after ${n2}
