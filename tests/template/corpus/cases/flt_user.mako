${ctype | twice}
