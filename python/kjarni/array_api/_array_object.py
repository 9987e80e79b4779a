"""The array API standard's array object: a kjarni ``Array`` on a device's queue, whose operators
compute at once (one kernel each) instead of building kjarni's lazy ``Expr``."""

import builtins
import operator

import numpy

from .. import _kjarni
from ..dtypes import dtype as _kdtype
from ._dtype_objects import dtype_of

_device_work = _kjarni._array_api


class Device:
    """A device of the namespace: one kjarni queue on one OpenCL or CUDA device."""

    def __init__(self, bound_device, name):
        self._queue = _kjarni.Queue(bound_device)
        self._name = name

    @property
    def queue(self):
        return self._queue

    def __repr__(self):
        return f"kjarni.array_api.Device({self._name!r})"

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


_devices = []


def devices():
    """Every device the namespace can place arrays on: each device of the first API's first
    platform that has one (PoCL's CPU devices in CI), in one context each."""
    if not _devices:
        from .. import API, Context
        apis = API.all_available()
        if not apis:
            from ..errors import ApiUnavailableError
            raise ApiUnavailableError("no GPU API is available here (neither CUDA nor OpenCL has a platform)")
        for platform in apis[0].platforms:
            if platform.devices:
                for device in platform.devices:
                    context = Context.from_devices([device])
                    _devices.append(Device(context.device, f"{apis[0].shortcut}:{device.name}"))
                break
    return list(_devices)


def default_device():
    return devices()[0]


def device_of(device):
    if device is None:
        return default_device()
    if not isinstance(device, Device):
        raise ValueError(f"not a kjarni.array_api device: {device!r}")
    return device


def evaluate(expr, device):
    return wrap(_kjarni.evaluate(device.queue, expr, None), device)


def wrap(karray, device):
    karray.queue = device.queue
    return Array._new(karray, device)


def upload(host, device):
    """A device copy of a numpy array."""
    host = numpy.asarray(host, order="C")  # ascontiguousarray would make a 0-d array 1-d
    queue = device.queue
    karray = _kjarni.Array._empty(queue.device, list(host.shape), _kdtype(host.dtype), None, 0, None)
    if host.size:
        karray._set_host(queue, host)
    return wrap(karray, device)


def empty_on(shape, dtype, device):
    queue = device.queue
    return wrap(_kjarni.Array._empty(queue.device, list(shape), _kdtype(dtype), None, 0, None), device)


def _is_python_scalar(x):
    return isinstance(x, (bool, int, float, complex))


def _check_scalar(x, array):
    """The array API's rules for a Python scalar beside an array: bool with bool arrays, int with
    integer and floating arrays, float with floating, complex with complex ones."""
    kind = array.dtype.kind
    if isinstance(x, bool):
        ok = True
    elif isinstance(x, int):
        ok = kind in "biufc"
        if kind in "iu":
            info = numpy.iinfo(array.dtype.dtype)
            if not info.min <= x <= info.max:
                raise OverflowError(f"Python int {x} out of bounds for {array.dtype}")
    elif isinstance(x, float):
        ok = kind in "fc"
    else:
        ok = kind == "c"
    if not ok:
        raise TypeError(f"a Python {type(x).__name__} cannot be combined with a {array.dtype} array")


def operand(x, other=None):
    """What an expression takes for an operand: the kjarni Array, or a Python scalar (weak)."""
    if isinstance(x, Array):
        return x._data
    if _is_python_scalar(x):
        if isinstance(other, Array):
            _check_scalar(x, other)
        return x
    raise TypeError(f"expected a kjarni.array_api array or a Python scalar, not {type(x).__name__}")


def device_of_operands(*xs):
    for x in xs:
        if isinstance(x, Array):
            return x._device
    return default_device()


def _index_key(key):
    """A basic-indexing key with our arrays as integers where the standard allows 0-d integer arrays."""
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    if isinstance(key, Array):
        if key.ndim == 0 and key.dtype.kind in "iu":
            return int(key)
        return key
    return key


class Array:
    """A kjarni array in the array API standard's terms (``kjarni.array_api``): an N-d array on one
    device; operators and the namespace's functions return new arrays computed on that device."""

    __slots__ = ("_data", "_device", "__weakref__")
    __array_priority__ = 100

    @classmethod
    def _new(cls, karray, device):
        self = object.__new__(cls)
        self._data = karray
        self._device = device
        return self

    def __init__(self, *args, **kwargs):
        raise TypeError("make arrays with kjarni.array_api's creation functions (asarray, zeros, ...)")

    # ---- attributes -------------------------------------------------------------------------------
    @property
    def dtype(self):
        return dtype_of(self._data.dtype)

    @property
    def device(self):
        return self._device

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def shape(self):
        return tuple(self._data.shape)

    @property
    def size(self):
        return self._data.size

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError("x.T needs a 2-d array (use matrix_transpose or permute_dims)")
        return Array._new(self._data.transpose([1, 0]), self._device)

    @property
    def mT(self):
        from ._linalg import matrix_transpose
        return matrix_transpose(self)

    def to_device(self, device, /, *, stream=None):
        device = device_of(device)
        if device is self._device:
            return self
        # The copy runs on the destination's queue: after what this array's queue holds (its
        # values may still be being written there), and before that queue writes the array again.
        device.queue.wait_for(self._device.queue.record_event(timing=False))
        moved = wrap(_kjarni.transfer(self._data, device.queue), device)
        self._device.queue.wait_for(device.queue.record_event(timing=False))
        return moved

    def __array_namespace__(self, *, api_version=None):
        if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12"):
            raise ValueError(f"kjarni.array_api implements the 2023.12 standard, not {api_version}")
        from .. import array_api
        return array_api

    def __repr__(self):
        return f"kjarni.array_api.Array({self._host()!r}, device={self._device!r})"

    def to_kjarni(self):
        """The kjarni ``Array`` this array holds (the same memory; it remembers the device's queue,
        ``.queue``): kjarni's own functions and lazy operators from here (not the standard's)."""
        self._data.queue = self._device.queue
        return self._data

    # ---- the host -----------------------------------------------------------------------------------
    def _host(self):
        out = numpy.empty(self.shape, self.dtype.dtype)
        if out.size:
            self._data._get_host(self._device.queue, out)
        return out

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("a kjarni array lives in device memory: numpy cannot see it without a copy")
        out = self._host()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self._data.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def _scalar(self, kinds, convert):
        if self.ndim != 0:
            raise TypeError(f"only a 0-d array converts to a Python scalar, not one of shape {self.shape}")
        if self.dtype.kind not in kinds:
            raise TypeError(f"a {self.dtype} array does not convert to {convert.__name__}")
        return convert(self._host()[()])

    def __bool__(self):
        return self._scalar("biufc", builtins.bool)

    def __int__(self):
        return self._scalar("biuf", builtins.int)

    def __float__(self):
        return self._scalar("biuf", builtins.float)

    def __complex__(self):
        return self._scalar("biufc", builtins.complex)

    def __index__(self):
        return self._scalar("iu", operator.index)

    # ---- indexing -----------------------------------------------------------------------------------
    def __getitem__(self, key):
        from ._indexing import getitem
        return getitem(self, _index_key(key))

    def __setitem__(self, key, value):
        from ._indexing import setitem
        setitem(self, _index_key(key), value)

    def __len__(self):
        return len(self._data)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    __hash__ = None


def _binary(name, reflected=False):
    def op(self, other):
        from . import _elementwise
        if not isinstance(other, (Array, bool, int, float, complex)):
            return NotImplemented
        f = getattr(_elementwise, name)
        return f(other, self) if reflected else f(self, other)
    return op


def _inplace(name):
    def op(self, other):
        from . import _elementwise
        result = getattr(_elementwise, name)(self, other)
        if result.dtype != self.dtype or result.shape != self.shape:
            raise TypeError(f"in-place {name} would change the array's dtype or shape "
                            f"({self.dtype}{self.shape} -> {result.dtype}{result.shape})")
        _kjarni.assign(self._device.queue, self._data, result._data)
        return self
    return op


def _unary(name):
    def op(self):
        from . import _elementwise
        return getattr(_elementwise, name)(self)
    return op


for _op, _name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                   ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "pow"), ("and", "bitwise_and"),
                   ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "bitwise_left_shift"),
                   ("rshift", "bitwise_right_shift")):
    setattr(Array, f"__{_op}__", _binary(_name))
    setattr(Array, f"__r{_op}__", _binary(_name, reflected=True))
    setattr(Array, f"__i{_op}__", _inplace(_name))
for _op, _name in (("lt", "less"), ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"),
                   ("eq", "equal"), ("ne", "not_equal")):
    setattr(Array, f"__{_op}__", _binary(_name))
for _op, _name in (("neg", "negative"), ("pos", "positive"), ("abs", "abs"), ("invert", "bitwise_invert")):
    setattr(Array, f"__{_op}__", _unary(_name))


def _matmul(self, other):
    from ._linalg import matmul
    if not isinstance(other, Array):
        return NotImplemented
    return matmul(self, other)


def _rmatmul(self, other):
    from ._linalg import matmul
    if not isinstance(other, Array):
        return NotImplemented
    return matmul(other, self)


def _imatmul(self, other):
    result = _matmul(self, other)
    if result is NotImplemented:
        return result
    if result.dtype != self.dtype or result.shape != self.shape:
        raise ValueError("in-place matmul would change the array's dtype or shape")
    _kjarni.assign(self._device.queue, self._data, result._data)
    return self


Array.__matmul__ = _matmul
Array.__rmatmul__ = _rmatmul
Array.__imatmul__ = _imatmul
