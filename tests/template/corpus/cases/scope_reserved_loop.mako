% for i in range(2):
<% loop = 5 %>${loop}
% endfor
