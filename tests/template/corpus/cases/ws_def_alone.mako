a
<%def name="f(x)">
  x=${x}
</%def>
b ${f(1)} c
