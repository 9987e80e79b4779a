% for s in [2 ** k for k in reversed(range(4))]:
if (lid < ${s}) smem[lid] += smem[lid + ${s}];
LOCAL_BARRIER;
% endfor
