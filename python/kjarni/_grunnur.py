"""grunnur's vocabulary where it is more than a name (grunnur 0.3, the reference, and 0.6, what PyPI
installs): ``API.any()``, the argument orders of ``Snippet.from_string`` and ``Module.from_string``,
``with_added_globals``, ``ArrayMetadata`` and the array constructors and views built on it,
``BoundDevice.as_unbound``, ``DeviceParameters.align_words``. Attached to the C++ classes on import."""

import abc
import typing

import numpy

from . import _kjarni
from .dtypes import dtype as _kdtype, to_numpy as _to_numpy
from .errors import ApiUnavailableError, ArgumentError, ArgumentTypeError

API = _kjarni.API
Array = _kjarni.Array
Snippet = _kjarni.Snippet
Module = _kjarni.Module
DefTemplate = _kjarni.DefTemplate
# The C++ constructors, (source, render_globals, name), before grunnur's orders replace them.
_snippet_from_source = Snippet.from_string
_module_from_source = Module.from_string


# ---- APIs ------------------------------------------------------------------------------------------

def _api_any():
    """The first API available here (CUDA before OpenCL); ApiUnavailableError when there is none."""
    apis = API.all_available()
    if not apis:
        raise ApiUnavailableError("no GPU API is available here (neither CUDA nor OpenCL has a platform)")
    return apis[0]


API.any = staticmethod(_api_any)
API.cuda = staticmethod(lambda: API.from_api_id(_kjarni.cuda_api_id()))
API.opencl = staticmethod(lambda: API.from_api_id(_kjarni.opencl_api_id()))
API.cuda.__doc__ = "The CUDA API; ApiUnavailableError where its driver does not load."
API.opencl.__doc__ = "The OpenCL API; ApiUnavailableError where no ICD loader or platform is found."


# ---- Snippets and modules --------------------------------------------------------------------------

def _globals(render_globals):
    return None if render_globals is None else dict(render_globals)


def _snippet_from_string(cls, *args, **kwargs):
    """grunnur 0.6: ``from_string(argnames, source, name="_snippet", render_globals={})``; grunnur
    0.3: ``from_string(source, name="_snippet", render_globals={})`` (a snippet without parameters).
    The first argument tells which: a string is a source, a sequence of strings the parameter names."""
    if "argnames" in kwargs or (args and not isinstance(args[0], str)):
        return _snippet_with_argnames(*args, **kwargs)
    return _snippet_without_argnames(*args, **kwargs)


def _snippet_with_argnames(argnames, source, name="_snippet", render_globals=None):
    argnames = list(argnames)
    if not all(isinstance(a, str) for a in argnames):
        raise ArgumentError("must be a sequence of parameter names (strings)", "argnames")
    return Snippet(DefTemplate.from_string(name, argnames, source), _globals(render_globals))


def _snippet_without_argnames(source, name="_snippet", render_globals=None):
    return _snippet_from_source(source, _globals(render_globals), name)


def _module_from_string(cls, source, name="_module", render_globals=None):
    """grunnur's order: ``from_string(source, name="_module", render_globals={})``; the source is the
    body of a def whose one parameter is ``prefix``."""
    return _module_from_source(source, _globals(render_globals), name)


def _with_added_globals(self, add_globals=None):
    """A snippet with the same def and these render globals added; ArgumentError naming a global
    that it has already (grunnur raises ValueError, which ArgumentError is)."""
    merged = dict(self.render_globals)
    for key, value in (add_globals or {}).items():
        if key in merged:
            raise ArgumentError(f"cannot add the global '{key}': the snippet has it already", "add_globals")
        merged[key] = value
    return Snippet(self.template_def, merged)


Snippet.from_string = classmethod(_snippet_from_string)
Snippet.with_added_globals = _with_added_globals
Snippet.template = property(lambda self: self.template_def, doc="The def (grunnur's name).")
Snippet.name = property(lambda self: self.template_def.name)
Module.from_string = classmethod(_module_from_string)
Module.template = property(lambda self: self.template_def, doc="The def (grunnur's name).")
Module.name = property(lambda self: self.template_def.name)


# ---- Array metadata --------------------------------------------------------------------------------

def _shape_tuple(shape):
    if isinstance(shape, (int, numpy.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


class AsArrayMetadata(abc.ABC):
    """Anything that gives an ArrayMetadata (grunnur's AsArrayMetadata): ``as_array_metadata()``.
    ArrayMetadata and kjarni's Array are ones; a subclass is what ``Array.empty_like`` and
    ``ArrayMetadata.from_arraylike`` take besides those and numpy arrays."""

    @abc.abstractmethod
    def as_array_metadata(self):
        """The ArrayMetadata this object stands for."""


@typing.runtime_checkable
class ArrayLike(typing.Protocol):
    """An array that gives views by ``__getitem__`` and states its ``shape`` and ``dtype``
    (grunnur's ArrayLike protocol): numpy arrays, kjarni's Array, ArrayMetadata."""

    @property
    def shape(self):
        """The array's shape."""

    @property
    def dtype(self):
        """The type of an element."""

    def __getitem__(self, slices):
        """A view of this array."""


class ArrayMetadata(AsArrayMetadata):
    """An array's layout without its memory (grunnur's ArrayMetadata): ``shape``, ``dtype`` (numpy),
    ``strides`` in bytes (C order by default), ``first_element_offset`` (bytes from the start of
    the buffer to element [0, 0, ...]; by default just enough for what negative strides put before
    it), ``buffer_size`` (at least what the elements reach), and derived from them ``span`` (the
    bytes from the lowest element to the end of the highest), ``min_offset`` (where the lowest
    element starts) and ``is_contiguous`` (C-contiguous strides)."""

    def __init__(self, shape, dtype, *, strides=None, first_element_offset=None, buffer_size=None):
        self.shape = _shape_tuple(shape)
        if len(self.shape) == 0:
            raise ArgumentError("must have at least one dimension (grunnur's rule)", "shape")
        self.dtype = _to_numpy(dtype)
        itemsize = self.dtype.itemsize
        default_strides = _c_strides(self.shape, itemsize)
        self.strides = default_strides if strides is None else tuple(int(s) for s in strides)
        if len(self.strides) != len(self.shape):
            raise ArgumentError(f"{self.strides} has not one stride for each of the {len(self.shape)} dimensions",
                                "strides")
        low, high = _extent(self.shape, itemsize, self.strides)
        self.span = high - low
        if first_element_offset is None:
            first_element_offset = -low
        elif first_element_offset < -low:
            raise ArgumentError(f"is {first_element_offset}, less than the {-low} bytes that negative strides put "
                                "before the first element", "first_element_offset")
        self.first_element_offset = int(first_element_offset)
        self.min_offset = self.first_element_offset + low
        needed = self.first_element_offset + high
        if buffer_size is None:
            buffer_size = needed
        elif buffer_size < needed:
            raise ArgumentError(f"is {buffer_size}, less than the {needed} bytes the elements reach", "buffer_size")
        self.buffer_size = int(buffer_size)
        self.is_contiguous = self.strides == default_strides

    @classmethod
    def from_arraylike(cls, array_like):
        """The metadata of a kjarni Array (its offset and buffer size included), of an AsArrayMetadata
        (anything with ``as_array_metadata()``), or of a numpy array."""
        if isinstance(array_like, AsArrayMetadata) or hasattr(array_like, "as_array_metadata"):
            return array_like.as_array_metadata()
        return cls(array_like.shape, array_like.dtype, strides=array_like.strides)

    def as_array_metadata(self):
        return self

    def with_(self, dtype=None):
        """The same layout with another dtype."""
        return ArrayMetadata(self.shape, self.dtype if dtype is None else dtype, strides=self.strides,
                             first_element_offset=self.first_element_offset, buffer_size=self.buffer_size)

    def get_sub_region(self, origin, size):
        """The same elements seen from a region of the buffer starting at byte ``origin``, ``size`` bytes
        long (which must hold them all)."""
        if origin > self.min_offset:
            raise ArgumentError(f"{origin} lies after the lowest element (byte {self.min_offset})", "origin")
        if origin + size < self.min_offset + self.span:
            raise ArgumentError(f"{size} bytes from {origin} do not reach the highest element's end "
                                f"(byte {self.min_offset + self.span})", "size")
        return ArrayMetadata(self.shape, self.dtype, strides=self.strides,
                             first_element_offset=self.first_element_offset - origin, buffer_size=size)

    def _basis(self):
        return (self.dtype, self.shape, self.strides, self.first_element_offset, self.buffer_size)

    def __eq__(self, other):
        return isinstance(other, ArrayMetadata) and self._basis() == other._basis()

    def __hash__(self):
        return hash((ArrayMetadata, self._basis()))

    def __getitem__(self, slices):
        """The metadata of a view (grunnur's metadata views): ``metadata[1:, ::2]``, a slice or a tuple
        of slices, the axes not named kept whole; offsets stay relative to the same buffer. Lengths,
        strides and offsets are those of kjarni's Array views (numpy's, so a view with no elements
        has length 0 where grunnur's metadata keeps some)."""
        if not isinstance(slices, tuple):
            slices = (slices,)
        if not all(isinstance(s, slice) for s in slices):
            raise ArgumentTypeError(f"ArrayMetadata[...] takes slices, not "
                                    f"({', '.join(type(s).__name__ for s in slices)})")
        if len(slices) > len(self.shape):
            raise ArgumentError(f"{len(slices)} slices for {len(self.shape)} dimensions", "slices")
        slices += (slice(None),) * (len(self.shape) - len(slices))
        shape, strides, offset = [], [], self.first_element_offset
        for extent, stride, s in zip(self.shape, self.strides, slices):
            start, stop, step = s.indices(extent)
            shape.append(len(range(start, stop, step)))
            strides.append(stride * step)
            offset += start * stride
        if 0 in shape:
            offset = self.first_element_offset
        return ArrayMetadata(shape, self.dtype, strides=strides, first_element_offset=offset,
                             buffer_size=self.buffer_size)

    def __repr__(self):
        """grunnur's: dtype and shape, then strides, first_element_offset and buffer_size where they
        are not the defaults (C-order strides, 0, the end of the elements)."""
        args = [f"dtype={self.dtype}", f"shape={self.shape}"]
        if not self.is_contiguous:
            args.append(f"strides={self.strides}")
        if self.first_element_offset != 0:
            args.append(f"first_element_offset={self.first_element_offset}")
        if self.buffer_size != self.min_offset + self.span:
            args.append(f"buffer_size={self.buffer_size}")
        return f"ArrayMetadata({', '.join(args)})"


def _c_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _extent(shape, itemsize, strides):
    """(lowest, highest) byte offsets relative to the first element: the first element's start and
    the end of the last."""
    if any(s == 0 for s in shape):
        return 0, 0
    low = sum(st * (n - 1) for n, st in zip(shape, strides) if st < 0)
    high = sum(st * (n - 1) for n, st in zip(shape, strides) if st > 0) + itemsize
    return low, high


def _array_metadata(self):
    """This array's layout as grunnur's ArrayMetadata (offsets relative to its base buffer)."""
    return ArrayMetadata(self.shape, self.dtype, strides=self.strides, first_element_offset=self.offset,
                         buffer_size=self.base.size)


def _empty_with_metadata(cls, device, metadata, allocator=None):
    """An uninitialized array laid out as ``metadata`` says, in a new allocation of its buffer size
    (made by ``allocator(device, size)`` when given: a MemoryPool, a VirtualAllocator...)."""
    size = max(metadata.buffer_size, 1)
    base = allocator(device, size) if allocator is not None else _kjarni.Buffer.allocate(device, size)
    return Array.from_buffer(base, _kdtype(metadata.dtype), list(metadata.shape), list(metadata.strides),
                             metadata.first_element_offset)


def _empty_like(cls, device, array_like, allocator=None):
    """An uninitialized array with the layout of ``array_like``: a kjarni Array, an ArrayMetadata or
    another AsArrayMetadata, or a numpy array (its shape, dtype and strides)."""
    return _empty_with_metadata(cls, device, ArrayMetadata.from_arraylike(array_like), allocator)


def _minimum_subregion(self):
    """The same elements over the smallest region of the buffer that holds them (a view sharing the
    memory). On OpenCL the region must start at the device's base address alignment."""
    metadata = self.metadata
    data = self.base.get_sub_region(metadata.min_offset, metadata.span)
    view = Array.from_buffer(data, _kdtype(self.dtype), list(self.shape), list(self.strides),
                             metadata.first_element_offset - metadata.min_offset)
    if hasattr(self, "queue"):
        view.queue = self.queue
    return view


AsArrayMetadata.register(Array)
Array.metadata = property(_array_metadata)
Array.as_array_metadata = _array_metadata
Array.empty_with_metadata = classmethod(_empty_with_metadata)
Array.empty_like = classmethod(_empty_like)
Array.minimum_subregion = _minimum_subregion


# ---- Devices ---------------------------------------------------------------------------------------

# The distance, in words, between base addresses at which accesses of that word size coalesce: the
# figure grunnur gives on both APIs (64 bytes for 4-byte words, 128 for 8- and 16-byte ones).
_ALIGN_WORDS = {4: 16, 8: 16, 16: 8}


def _align_words(self, word_size):
    if word_size not in _ALIGN_WORDS:
        raise ArgumentError(f"is {word_size}: alignments are known for words of 4, 8 and 16 bytes", "word_size")
    return _ALIGN_WORDS[word_size]


_kjarni.DeviceParameters.align_words = _align_words
_kjarni.BoundDevice.as_unbound = lambda self: self.device
_kjarni.BoundDevice.as_unbound.__doc__ = "The Device this bound device is (grunnur's as_unbound)."


# ---- Contexts and buffers --------------------------------------------------------------------------

def _deactivate(self):
    """grunnur's Context.deactivate(), which pops grunnur's CUDA contexts off the thread's stack:
    nothing to do in kjarni, which makes a device's primary context current itself before each
    driver call and never leaves one pushed for the caller to pop."""


_kjarni.Context.deactivate = _deactivate
_kjarni.Buffer.kernel_arg = property(
    lambda self: self,
    doc="What a kernel call takes for this buffer (grunnur's Buffer.kernel_arg): the Buffer itself, "
        "which kjarni's kernels take as they are; native_handle gives the driver's handle.")
