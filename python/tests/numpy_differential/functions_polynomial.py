"""Random programs of the numpy functions of kjarni/_numpy_polynomial.py (see functions.py for the
conventions: a program's code, its inputs and its bound)."""

GENERATORS = []
