## % while ... % endwhile, % for ... % else (rendered when no break ended the loop)
<% w = 3 %>\
% while w > 0:
w${w}<% w -= 1 %>
% endwhile
% for i in []:
never
% else:
empty
% endfor
% for i in range(3):
${i}\
% else:
 done
% endfor
% for i in range(5):
<% if i == 2: break %>\
b${i}
% else:
not rendered: the loop was broken
% endfor
