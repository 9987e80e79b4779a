## A def written in a def is a closure there (Mako): it reads the enclosing def's names and args,
## and is seen only inside it.
<%def name="outer(a)">\
<% x = a * 10 %>\
<%def name="inner(b)">${a}-${b}-${x}-${n}</%def>\
<%def name="deeper()">[${inner(1)}]</%def>\
${inner(a * 2)} ${deeper()}\
</%def>\
${outer(3)}
