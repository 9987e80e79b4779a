## In a % for's else body Mako's loop context is still the loop's, its index past the last item.
% for i in range(2):
${i}
% else:
${loop.index} ${loop.reverse_index} ${loop.first} ${loop.last} ${loop.even} ${i}
% endfor
% for j in range(2):
% for i in []:
% else:
% for k in 'ab':
${loop.parent.index}${k}
% endfor
% endfor
% endfor
