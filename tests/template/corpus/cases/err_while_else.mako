% while False:
% else:
% endwhile
