## A kernel template for the tool's tests (tests/CMakeLists.txt).
<%def name="body(factor)">y[i] = ${factor} * x[i];</%def>
KERNEL void ${name}(GLOBAL_MEM ${ctype}* y, GLOBAL_MEM const ${ctype}* x)
{
    const SIZE_T i = get_global_id(0);
% for k in range(unroll):
    ${body(k + 2)}
% endfor
}
