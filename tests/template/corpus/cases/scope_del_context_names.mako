## `del` of a name the function took from the context (Mako reads every such name when the
## function starts): in the top level, in a def (a top-level name handed to it too), in a <%call>
## body that alone reads it (which then takes it from the context itself).
${n}<% del n %>
<% w = 2 %>\
<%def name="d()">${w}<% del w %>y ${ctype}<% del ctype %></%def>${d()}
<%def name="c()">[${caller.body()}]</%def><%call expr="c()">${scale}<% del scale %>z</%call>
