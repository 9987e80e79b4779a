% for i in range(5):
${loop.cycle("a", "b")}\
% endfor

