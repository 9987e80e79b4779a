<%def name="g(a, b=2)">
${a}*${b}
</%def>
${g(1)} ${g(b=3, a=4)} ${argmod(7)}
