<%def name="unroll(count, stmt)">
% for i in range(count):
    ${stmt % i}
% endfor
</%def>
KERNEL void k(GLOBAL_MEM float *x)
{
${unroll(n, "x[%d] *= 2.0f;")}
}
