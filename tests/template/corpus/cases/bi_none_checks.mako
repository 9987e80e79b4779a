${None is None} ${n is not None} ${None == 0}
