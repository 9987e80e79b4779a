// first line
# coding: utf-8
int y = ${n};
