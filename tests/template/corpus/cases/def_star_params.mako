## *args, keyword-only and **kwargs parameters of <%def>s: extra positionals go to a tuple, extra
## keywords to a dict in the order given, keyword-only ones by name only.
<%def name="f(a, *args, b=2, **kw)">${a}|${args}|${b}|${kw}</%def>\
${f(1)} ${f(1, 2, 3, x=4, y=5)} ${f(1, b=7)}
<%def name="g(*items)">${len(items)}:${', '.join(str(i) for i in items)}</%def>\
${g()} ${g(*names)} ${g(*range(n))}
<%def name="h(**opts)">${sorted(opts.items())}</%def>\
${h(**mapping)} ${h(z=1, **{'a': 2})}
<%def name="k(x, *rest, last, sep='-')">${sep.join([str(x)] + [str(r) for r in rest] + [str(last)])}</%def>\
${k(1, 2, 3, last=4)} ${k(0, last=9, sep='+')}
<%def name="tag(**attrs)">${caller.body()}${attrs}</%def>\
<%self:tag cls="a" id="b">body:</%self:tag>
<%
def stmt(*xs, **kws):
    return len(xs), kws
xs = 0
kws = 0
%>\
${stmt(1, 2, q=3)}
