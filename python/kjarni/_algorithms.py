"""The algorithms as Python sees them: numpy dtypes in, and every new Array remembers the queue its
contents were computed on (``array.queue``), which ``get()``, ``__array__`` and ``__dlpack__`` then
order after."""

import functools

from . import _kjarni
from .dtypes import dtype as _d


def _remember(array, queue):
    if isinstance(array, (_kjarni.Array, _kjarni.MultiArray)):
        array.queue = queue
    elif isinstance(array, list):
        for a in array:
            _remember(a, queue)
    return array


def _on_queue(f):
    """`f(queue, ...)` whose result arrays remember `queue`."""
    @functools.wraps(f)
    def wrapped(queue, *args, **kwargs):
        return _remember(f(queue, *args, **kwargs), queue)
    return wrapped


def _typed(name):
    f = getattr(_kjarni, name)

    def reduction(queue, array, axis=None, dtype=None, keepdims=False, out=None):
        return _remember(f(queue, array, axis, None if dtype is None else _d(dtype), keepdims, out), queue)
    reduction.__name__ = name
    reduction.__doc__ = (f"numpy's {name} over `axis` (all axes when None), in `dtype` when given, "
                         "enqueued on `queue`: a new Array (or `out`).")
    return reduction


evaluate = _on_queue(_kjarni.evaluate)
sum = _typed("sum")  # noqa: A001 (numpy's names)
prod = _typed("prod")
mean = _typed("mean")
min = _on_queue(_kjarni.min)  # noqa: A001
max = _on_queue(_kjarni.max)  # noqa: A001
argmin = _on_queue(_kjarni.argmin)
argmax = _on_queue(_kjarni.argmax)
any = _on_queue(_kjarni.any)  # noqa: A001
all = _on_queue(_kjarni.all)  # noqa: A001
concatenate = _on_queue(_kjarni.concatenate)
stack = _on_queue(_kjarni.stack)
take = _on_queue(_kjarni.take)

_copy = _kjarni.Array.copy
_kjarni.Array.copy = lambda self, queue, order="C": _remember(_copy(self, queue, order), queue)
