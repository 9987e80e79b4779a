"""Array and MultiArray in grunnur's vocabulary, with numpy in and out (attached to the C++ classes)."""

import sys as _sys

import numpy

from . import _kjarni
from .dtypes import dtype as _kdtype, to_numpy as _to_numpy
from .errors import ArgumentError

Array = _kjarni.Array
MultiArray = _kjarni.MultiArray


def _queue_for(array, queue):
    """The queue to use: the one given, else the array's own (``array.queue``: set by from_host,
    zeros, from_dlpack and the algorithms, or by the user). Without either, ArgumentError: a fresh
    queue would not wait for whatever wrote the array."""
    if queue is not None:
        return queue
    q = getattr(array, "queue", None)
    if q is None:
        raise ArgumentError("no queue given and the array has none (array.queue): pass the queue its "
                            "writers used", "queue")
    return q


def _host_for(array, host):
    """A C-contiguous numpy array of ``array``'s dtype and shape with the values of ``host``."""
    host = numpy.asarray(host)
    if host.shape != array.shape:
        raise ArgumentError(f"has the shape {host.shape}, the array {array.shape}", "array")
    return numpy.asarray(host, dtype=array.dtype, order="C")


def _empty(cls, device, shape, dtype, strides=None, first_element_offset=0, allocator=None):
    """An uninitialized array (C-contiguous unless strides, in bytes, are given)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    strides = None if strides is None else list(strides)
    return Array._empty(device, list(shape), _kdtype(dtype), strides, first_element_offset, allocator)


def _zeros(cls, queue, shape, dtype, order="C", allocator=None):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    a = Array._zeros(queue, list(shape), _kdtype(dtype), order, allocator)
    a.queue = queue
    return a


def _from_host(cls, queue_or_device, host_arr):
    """A device copy of a numpy array (the transfer completes before it returns). Given a device, a
    queue is made for the transfer; the array remembers the queue (``array.queue``)."""
    queue = queue_or_device if isinstance(queue_or_device, _kjarni.Queue) else _kjarni.Queue(queue_or_device)
    # asarray, not ascontiguousarray: that makes a 0-d array 1-d (numpy's documented quirk).
    host = numpy.asarray(host_arr, order="C")
    a = Array._empty(queue.device, list(host.shape), _kdtype(host.dtype), None, 0, None)
    a._set_host(queue, host)
    a.queue = queue
    return a


def _get(self, queue=None, dest=None, async_=False):
    """The contents as a numpy array (into ``dest`` when given); completes before it returns."""
    queue = _queue_for(self, queue)
    if dest is not None and dest.flags.c_contiguous and dest.dtype == self.dtype and dest.shape == self.shape:
        self._get_host(queue, dest)
        return dest
    out = numpy.empty(self.shape, self.dtype)
    self._get_host(queue, out)
    if dest is not None:
        dest[...] = out
        return dest
    return out


def _set(self, queue, array, no_async=False):
    """Copies a numpy array (synchronously) or another Array (in queue order) into this one."""
    if isinstance(array, Array):
        self._set_array(queue, array, not no_async)
    else:
        self._set_host(queue, _host_for(self, array))


def _array_interface(self, dtype=None, copy=None):
    out = self.get()
    return out if dtype is None else out.astype(dtype, copy=False)


def _reshape(self, *shape, order="C"):
    """Another shape (numpy's rules): a view where one exists, else (as numpy) a copy on the array's queue."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    try:
        return self._reshape(list(shape), order)
    except ArgumentError:
        # numpy's reshape copies where no view has the shape (a.T.reshape(-1)...), on the array's queue.
        queue = getattr(self, "queue", None)
        if queue is None or "without a copy" not in str(_sys.exc_info()[1]):
            raise
        return self.copy(queue, order)._reshape(list(shape), order)


def _view(self, dtype):
    return self._view(_kdtype(dtype))


def _astype(self, queue, dtype, order="C", copy=True):
    out = self._astype(queue, _kdtype(dtype), order, copy)
    if out is not self:
        out.queue = queue
    return out


def _repr(self):
    return f"<kjarni.Array shape={self.shape} dtype={self.dtype} on {self.device.name!r}>"


Array.empty = classmethod(_empty)
Array.zeros = classmethod(_zeros)
Array.from_host = classmethod(_from_host)
Array.get = _get
Array.set = _set
Array.__array__ = _array_interface
Array.dtype = property(lambda self: _to_numpy(self._dtype), doc="The element type, as a numpy dtype.")
Array.reshape = _reshape
Array.view = _view
Array.astype = _astype
Array.__repr__ = _repr


def _array_namespace(self, *, api_version=None):
    """The array API standard's namespace for this array (2023.12): kjarni.array_api's functions,
    taking kjarni arrays as their own arrays (no copy, on the array's queue) and returning the
    standard's arrays (kjarni/array_api/_kjarni_arrays.py)."""
    from .array_api import _kjarni_arrays
    return _kjarni_arrays.array_namespace(self, api_version=api_version)


Array.__array_namespace__ = _array_namespace
# The arithmetic and ordering operators are C++ methods of Array (python/src/algorithms.cpp).
_kjarni.Expr.dtype = property(lambda self: _to_numpy(self._dtype))
_kjarni.Expr.astype = lambda self, dtype: _kjarni._expr_astype(self, _kdtype(dtype))


def _multi_empty(cls, devices, shape, dtype, allocator=None, splay=None):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return MultiArray._empty(devices, list(shape), _kdtype(dtype), allocator, splay)


def _multi_from_host(cls, mqueue, host_arr, splay=None):
    host = numpy.asarray(host_arr, order="C")
    a = MultiArray._from_host(mqueue, host, _kdtype(host.dtype), list(host.shape), splay)
    a.queue = mqueue
    return a


def _multi_get(self, mqueue=None, dest=None, async_=False):
    mqueue = mqueue if mqueue is not None else self.queue
    out = numpy.empty(self.shape, self.dtype)
    self._get_host(mqueue, out)
    if dest is not None:
        dest[...] = out
        return dest
    return out


def _multi_set(self, mqueue, array, no_async=False):
    if isinstance(array, MultiArray):
        self._set_multi(mqueue, array)
    else:
        self._set_host(mqueue, _host_for(self, array))


MultiArray.empty = classmethod(_multi_empty)
MultiArray.from_host = classmethod(_multi_from_host)
MultiArray.get = _multi_get
MultiArray.set = _multi_set
MultiArray.dtype = property(lambda self: _to_numpy(self._dtype))
MultiArray.CloneSplay = _kjarni.CloneSplay
MultiArray.EqualSplay = _kjarni.EqualSplay
