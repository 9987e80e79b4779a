#define ENCODING coding: utf-8
int x = ${n};
