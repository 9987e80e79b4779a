${"{a}-{b:03d}".format(a="z", b=7)}
