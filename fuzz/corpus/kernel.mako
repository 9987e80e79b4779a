KERNEL void f(${mod} a)
{
% for i in range(n):
    x += ${i} * ${snip("y")};
% endfor
}
