"""numpy's sorting, searching and counting on kjarni arrays (isin too), through kjarni's radix sort, unique and
searches: kjarni/_numpy_common.py says what they share."""

import numpy

from . import _kjarni
from .errors import ArgumentError
from ._numpy_common import Array, Expr, _queue, _refuse, _axes, _namespace_call, _new_like


def _flattened(a, axis, what):
    """The array and the axis to sort along: the flattened array for None; numpy's AxisError for an
    axis the array lacks. (Complex values are left out: kjarni's radix sort has no order of them.)"""
    if numpy.dtype(a.dtype).kind == "c":
        _refuse(what, "complex array")
    return (a.reshape(-1), 0) if axis is None else (a, _axes(axis, a.ndim, what)[0])


def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    # (Every kind sorts to the same values; kjarni's sort is stable.)
    if order is not None:
        _refuse("sort", "order")
    a, axis = _flattened(a, axis, "sort")
    return _namespace_call("sort", a, "sort", a, axis=axis)


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    # kjarni's argsort is numpy's kind="stable" whatever `kind` says: equal elements keep their
    # order, where numpy's default quicksort may not (docs/numpy-differences.md).
    if order is not None:
        _refuse("argsort", "order")
    if a.ndim == 0:
        a = a.reshape(1)  # (numpy's argsort takes a 0-d array as one element: [0])
    a, axis = _flattened(a, axis, "argsort")
    return _namespace_call("argsort", a, "argsort", a, axis=axis)


def _unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
            sorted=True):
    # numpy's: the flattened array's distinct values (NaNs as one: equal_nan=True), each first
    # index, the inverse in the array's shape, the counts.
    if axis is not None:
        _refuse("unique", "axis")
    kind = numpy.dtype(ar.dtype).kind
    if kind == "c":
        _refuse("unique", "complex array")
    if not equal_nan and kind == "f":
        _refuse("unique", "equal_nan=False")
    queue = _queue("unique", ar)
    i64 = numpy.dtype("int64")
    if ar.size == 0:
        parts = [Array.empty(ar.device, (0,), ar.dtype), Array.empty(ar.device, (0,), i64),
                 Array.empty(ar.device, ar.shape, i64), Array.empty(ar.device, (0,), i64)]
    else:
        parts = list(_kjarni._array_api.unique(queue, ar.reshape(-1), return_index, return_inverse, return_counts))
        if parts[2] is not None:
            parts[2] = parts[2].reshape(ar.shape)
    for part in parts:
        if part is not None:
            part.queue = queue
    wanted = [parts[0]] + [p for p, asked in zip(parts[1:], (return_index, return_inverse, return_counts)) if asked]
    return wanted[0] if len(wanted) == 1 else tuple(wanted)


def _searchsorted(a, v, side="left", sorter=None):
    queue = _queue("searchsorted", a)
    if numpy.dtype(a.dtype).kind == "c" or numpy.dtype(getattr(v, "dtype", numpy.float64)).kind == "c":
        _refuse("searchsorted", "complex array")
    values = v
    if not isinstance(v, Array):
        # numpy's: the values as an array of their own (a Python int int64), both in the common dtype
        # (uint64 with -4: float64)
        host = numpy.asarray(v)
        if host.dtype == object:
            raise ArgumentError(f"numpy.searchsorted: values {v!r} hold a Python int that no dtype of kjarni's holds",
                                "v")
        common = numpy.promote_types(a.dtype, host.dtype)
        values = Array.from_host(queue, host.astype(common))
        values.queue = queue
        if common != numpy.dtype(a.dtype):
            from . import _algorithms
            a = _algorithms.evaluate(queue, Expr(a).astype(common))
            a.queue = queue
    return _namespace_call("searchsorted", a, "searchsorted", a, values, side=side, sorter=sorter)


def _isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    # numpy's: whether each element equals one of test_elements (NaN equals none), here by a search
    # in the sorted test elements, both in their common dtype.
    queue = _queue("isin", element, test_elements)
    dtype = numpy.result_type(element.dtype, test_elements.dtype)
    if dtype.kind == "c":
        _refuse("isin", "complex arrays")
    from . import _algorithms

    def as_common(a):
        a = a if numpy.dtype(a.dtype) == dtype else _algorithms.evaluate(queue, Expr(a).astype(dtype))
        a.queue = queue
        return a
    element, tests = as_common(element), as_common(test_elements.reshape(-1))
    if tests.size == 0:
        found = _new_like("isin", element, numpy.bool_, None, False)
    else:
        tests = _sort(tests)
        at = _searchsorted(tests, element)
        last = Array.from_host(queue, numpy.array(tests.size - 1, dtype=numpy.int64))
        nearest = _algorithms.take(queue, tests, _algorithms.evaluate(queue, _kjarni.minimum(at, last)))
        found = Expr(nearest) == element
    return _kjarni._array_api.unary("logical_not", found) if invert else found


def _nonzero(a):
    return _namespace_call("nonzero", a, "nonzero", a)


def _flatnonzero(a):
    return _nonzero(a.reshape(-1))[0]


def _count_nonzero(a, axis=None, *, keepdims=False):
    queue = _queue("count_nonzero", a)
    axes = None if axis is None else _axes(axis, a.ndim, "count_nonzero")
    counts = _kjarni._array_api.count_nonzero(queue, a, None if axes is None else list(axes))
    if axis is None and not keepdims:
        return numpy.intp(counts.get(queue))  # numpy's integer (numpy.intp) for the whole array
    if keepdims:
        counts = counts.reshape(tuple(1 if axes is None or k in axes else n for k, n in enumerate(a.shape)))
    counts.queue = queue
    return counts


def _argwhere(a):
    # numpy's: the indices of the nonzero elements, one row each (a 0-d array as one of shape (1,)).
    queue = _queue("argwhere", a)
    data = a.reshape(1) if a.ndim == 0 else a
    parts = _nonzero(data)
    from . import _algorithms
    rows = _algorithms.stack(queue, list(parts), axis=1)
    return rows[:, :0] if a.ndim == 0 else rows


def functions():
    """numpy's function object -> its composition here (those numpy has)."""
    table = {
        "sort": _sort, "argsort": _argsort, "unique": _unique, "searchsorted": _searchsorted, "nonzero": _nonzero,
        "flatnonzero": _flatnonzero, "count_nonzero": _count_nonzero, "argwhere": _argwhere, "isin": _isin,
    }
    return {getattr(numpy, name): f for name, f in table.items() if hasattr(numpy, name)}
