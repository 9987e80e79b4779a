## * and ** unpacking in calls and displays.
${max(*[3, 1, 2])} ${dict(**{'a': 1})} ${'{a}'.format(**{'a': 1})} ${{**mapping, 'a': 0}} ${[*names, 'w']} ${(*names,)}
${sorted({*names})} ${{'z': 1, **mapping, 'b': 5}} ${dict(a=1, **{'b': 2})} ${max(1, *[5], *(2, 3))} ${twice(*['ab'])}
${[*'ab', *range(2)]} ${str(*[5])}
% for x in *names, 'w':
${x}\
% endfor

<% t = *names, 1 %>${t}
