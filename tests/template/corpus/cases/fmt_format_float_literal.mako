#define SCALE ${"{:.8e}".format(scale)}f
