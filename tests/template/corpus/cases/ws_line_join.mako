int x = \
${n};
long y = 1 + \
2;
