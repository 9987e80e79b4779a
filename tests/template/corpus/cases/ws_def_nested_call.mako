<%def name="inner(v)">(${v})</%def>
<%def name="outer(v)">[${inner(v)}${inner(v * 2)}]</%def>
${outer(3)}
