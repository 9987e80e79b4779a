"""What ``kjarni.Array.__array_namespace__()`` returns: kjarni.array_api's namespace, taking kjarni's
own arrays wherever it takes arrays. A kjarni ``Array`` argument becomes the namespace's array over
the same memory (no copy) on a device of the namespace made for the queue the array remembers
(``x.queue``, which from_host, zeros and the algorithms set), so that the work is ordered after
what wrote it; ``device=`` may name a kjarni device (a BoundDevice: a queue is made for it). The
results are the standard's arrays (``kjarni.array_api.Array``, whose operators compute at once, as
the standard wants, where kjarni's build a lazy expression); ``kjarni.array_api.asarray(x)`` of a
kjarni array is the zero-copy way into the namespace, ``y.to_kjarni()`` the way back.

    xp = x.__array_namespace__()       # x: a kjarni.Array
    y = xp.sum(xp.sin(x) ** 2)         # a 0-d kjarni.array_api.Array on x's device and queue
"""

import types

from .. import _kjarni
from ..errors import ArgumentError
from . import _array_object

# The namespace's devices for the queues (and kjarni devices) of kjarni arrays met so far, kept for
# the process as the namespace's own devices are: the arrays made on them refer to them.
_queue_devices = []
_bound_devices = []


def _device_for_queue(queue):
    for known, device in _queue_devices:
        if known == queue:
            return device
    device = _array_object.Device.__new__(_array_object.Device)
    device._queue = queue
    device._name = f"{queue.device.context.api.shortcut}:{queue.device.name} (a kjarni queue)"
    _queue_devices.append((queue, device))
    return device


def _device_for_bound(bound):
    for known, device in _bound_devices:
        if known == bound:
            return device
    device = _array_object.Device(bound, f"{bound.context.api.shortcut}:{bound.name}")
    _bound_devices.append((bound, device))
    return device


def _array(x):
    queue = getattr(x, "queue", None)
    if queue is None:
        raise ArgumentError("a kjarni array used through its array API namespace needs the queue its writers "
                            "used (array.queue)", "array")
    return _array_object.Array._new(x, _device_for_queue(queue))


def _convert(value):
    if isinstance(value, _kjarni.Array):
        return _array(value)
    if isinstance(value, _kjarni.BoundDevice):
        return _device_for_bound(value)
    if type(value) in (list, tuple):
        return type(value)(_convert(v) for v in value)
    return value


def _taking_kjarni_arrays(function):
    def call(*args, **kwargs):
        return function(*(_convert(a) for a in args), **{k: _convert(v) for k, v in kwargs.items()})
    call.__name__ = getattr(function, "__name__", "function")
    call.__qualname__ = call.__name__
    call.__doc__ = function.__doc__
    call.__wrapped__ = function
    return call


_namespace = None


def namespace():
    """The namespace kjarni.Array.__array_namespace__ returns (made once)."""
    global _namespace
    if _namespace is None:
        from .. import array_api
        ns = types.ModuleType("kjarni.array_api (over kjarni arrays)", array_api.__doc__)
        for name in dir(array_api):
            if name.startswith("_") and name not in ("__array_api_version__", "__array_namespace_info__"):
                continue
            value = getattr(array_api, name)
            is_function = isinstance(value, types.FunctionType) and name != "__array_namespace_info__"
            setattr(ns, name, _taking_kjarni_arrays(value) if is_function else value)
        _namespace = ns
    return _namespace


def array_namespace(self, *, api_version=None):
    """The array API standard's namespace for this array (2023.12): kjarni.array_api's functions,
    which take kjarni arrays as their own (no copy) and return the standard's arrays."""
    if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12"):
        raise ValueError(f"kjarni.array_api implements the 2023.12 standard, not {api_version}")
    return namespace()
