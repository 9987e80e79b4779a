[${"ab".ljust(5)}][${"ab".rjust(5, ".")}][${"ab".center(6, "*")}][${"7".zfill(3)}]
