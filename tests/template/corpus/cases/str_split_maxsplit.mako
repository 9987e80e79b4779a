## str.split and str.rsplit on whitespace with maxsplit: the rest keeps the whitespace on its far side.
% for s in [' a b ', ' 7  7 ', 'a b', ' a ', '  ', 'a  b  c  ', '\tx\ny z\t']:
%   for m in [-1, 0, 1, 2, 5]:
${repr(s)} ${m}: ${s.split(None, m)} ${s.rsplit(None, m)} ${s.split(maxsplit=m)} ${s.rsplit(maxsplit=m)}
%   endfor
% endfor
${(twice(" 7 ")).split(None, 1)[-1]}${flag}]
${'x,y,,z,'.split(',', 2)} ${'x,y,,z,'.rsplit(',', 2)} ${'x,y,,z,'.split(',')}
