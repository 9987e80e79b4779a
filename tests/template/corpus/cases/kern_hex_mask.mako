#define MASK ${hex((1 << n) - 1)}
#define BIG ${hex(2 ** 63)}ULL
