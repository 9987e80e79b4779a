${"{} {} {}".format(1, "a", scale)} ${"{0}{1}{0}".format("x", "y")}
