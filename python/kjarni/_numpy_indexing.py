"""numpy's indexing and array-editing functions on kjarni arrays (take_along_axis, put, insert, delete, select, ...)."""

import numpy


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {}
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
