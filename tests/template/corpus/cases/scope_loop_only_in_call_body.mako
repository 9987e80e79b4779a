## Mako's generated code fails on a `% for` whose `loop` is used only inside a <%call> body: kjarni refuses it too.
<%def name="c3(m)">[${caller.body(k4=m)}]</%def>\
% for i2 in range(1):
<%call expr="c3(-3)" args="k4">
    % for i5 in 'ab':
        ${loop.last}:${i5}
    % endfor
</%call>\
% endfor
