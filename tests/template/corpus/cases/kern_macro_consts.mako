<%
    consts = dict(BLOCK=16, WARP=32, HALF=16 // 2)
%>
% for k, v in consts.items():
#define ${k} ${v}
% endfor
