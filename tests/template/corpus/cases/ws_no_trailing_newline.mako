% if flag:
yes
% endif
end