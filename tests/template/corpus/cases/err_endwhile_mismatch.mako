% while False:
% endfor
