## `loop` used in the top level itself (another `% for`, a block, the same loop): Mako's code declares its loop stack, the <%call> bodies see the loops.
<%def name="c()">[${caller.body()}]</%def>\
% for i in range(1):
${loop.index}<%call expr="c()">${loop.index}</%call>\
% endfor
% for j in range(1):
${loop.index}
% endfor
% for i in range(1):
<%call expr="c()">${loop.index}</%call>\
% endfor
% for i in range(2):
<%block>${loop.index}</%block>\
% endfor
