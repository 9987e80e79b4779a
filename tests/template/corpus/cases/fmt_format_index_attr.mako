${"{0[1]} {1[a]}".format(names, mapping)}
