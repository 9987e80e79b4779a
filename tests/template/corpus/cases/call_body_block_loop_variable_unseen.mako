## A loop variable of the body is the body's local: not seen by a block in the loop.
<%def name="wrap(m)">[${caller.body(k=m)}]</%def>\
<%call expr="wrap(4)" args="k">
% for x in names:
<%block>${x}</%block>
% endfor
</%call>
