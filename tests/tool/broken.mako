## A template with an error on line 3 (tests/CMakeLists.txt).
KERNEL void k(GLOBAL_MEM float* y)
{ y[0] = ${1 +}; }
