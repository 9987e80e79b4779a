"""Reductions taking numpy dtypes (the C++ side takes kjarni's)."""

from . import _kjarni
from .dtypes import dtype as _d


def _typed(name):
    f = getattr(_kjarni, name)

    def reduction(queue, array, axis=None, dtype=None, keepdims=False, out=None):
        return f(queue, array, axis, None if dtype is None else _d(dtype), keepdims, out)
    reduction.__name__ = name
    reduction.__doc__ = f"numpy's {name} over `axis` (all axes when None), enqueued on `queue`; a new Array."
    return reduction


sum = _typed("sum")  # noqa: A001
prod = _typed("prod")
mean = _typed("mean")
