#coding:
  utf8 rest of line
body ${n}
