# -*- coding: latin-1 -*-
// ${ctype} kernel
#define A 1
