<%def name="wrap(tag, n=1)">\
<${tag} n="${n}">${caller.body(k=n * 2)}</${tag}>\
</%def>\
<%local:wrap tag="div" n="${n + 1}" args="k">[${k}]</%local:wrap>
<%self:wrap tag="s${ctype}pan${'!'}" args="k">${k}</%self:wrap>
