"""The standard's set functions on kjarni's unique (a radix sort on the device). The standard counts
every NaN as a distinct value, kjarni's unique (numpy's equal_nan=True) as one: an array holding
NaNs goes through numpy's unique on the host (its NaN count is read first)."""

from collections import namedtuple

import numpy

from .. import _kjarni
from ._array_object import empty_on, upload, wrap

_work = _kjarni._array_api

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _has_nan(x):
    if x.dtype.kind not in "fc":
        return False
    from ._elementwise import isnan
    from ._statistical import any as any_
    return bool(any_(isnan(x)))


def _unique(x, index, inverse, counts):
    """(values, index, inverse, counts), the ones not asked for None."""
    i64 = numpy.dtype("int64")
    if x.size == 0:
        empty = empty_on((0,), i64, x.device)
        return (empty_on((0,), x.dtype, x.device), empty if index else None,
                empty_on(x.shape, i64, x.device) if inverse else None, empty if counts else None)
    if x.dtype.kind == "c" or _has_nan(x):  # kjarni's sort refuses complex values
        host = x._host()
        values, first, inv, cnt = numpy.unique(host, return_index=True, return_inverse=True, return_counts=True,
                                               equal_nan=False)
        up = lambda a: upload(a.astype(i64), x.device)  # noqa: E731
        return (upload(values, x.device), up(first) if index else None,
                up(inv.reshape(x.shape)) if inverse else None, up(cnt) if counts else None)
    source = x._data if x.ndim else x._data.reshape([1])
    values, first, inv, cnt = _work.unique(x.device.queue, source, index, inverse, counts)
    w = lambda a: None if a is None else wrap(a, x.device)  # noqa: E731
    inv = w(inv)
    if inv is not None and inv.shape != x.shape:
        from ._manipulation import reshape
        inv = reshape(inv, x.shape)
    return w(values), w(first), inv, w(cnt)


def unique_all(x, /):
    return UniqueAllResult(*_unique(x, True, True, True))


def unique_counts(x, /):
    values, _, _, counts = _unique(x, False, False, True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    values, _, inverse, _ = _unique(x, False, True, False)
    return UniqueInverseResult(values, inverse)


def unique_values(x, /):
    return _unique(x, False, False, False)[0]
