KERNEL void multiply_them(
% for nm in ["dest", "a", "b"]:
    GLOBAL_MEM ${ctype} *${nm}${"," if not loop.last else ")"}
% endfor
{
    const SIZE_T i = get_global_id(0);
    dest[i] = a[i] * b[i] * ${scale}f;
}
