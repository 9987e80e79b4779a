// common header for ${ctype}
#define N ${n}
