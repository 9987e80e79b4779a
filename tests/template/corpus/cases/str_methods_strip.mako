[${"  a b  ".strip()}][${"xxaxx".strip("x")}][${"  a".lstrip()}][${"a  ".rstrip()}]
