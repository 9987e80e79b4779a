"""numpy's set functions and the unique family on kjarni arrays."""

import numpy


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {}
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
