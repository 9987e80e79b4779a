"""Programs, kernels and static kernels in grunnur's vocabulary."""

import numpy

from . import _kjarni
from ._kernel_parameters import kernel_parameters
from ._templates import to_template_source
from .dtypes import ctype as _ctype
from .errors import ArgumentError, VirtualSizeError


def as_multi_device(devices):
    """A BoundMultiDevice from a BoundDevice, a list of them, a BoundMultiDevice or a Context."""
    if isinstance(devices, _kjarni.BoundMultiDevice):
        return devices
    if isinstance(devices, _kjarni.BoundDevice):
        return _kjarni.BoundMultiDevice.from_bound_devices([devices])
    if isinstance(devices, _kjarni.Context):
        return devices.devices
    devices = list(devices)
    if not devices or not all(isinstance(d, _kjarni.BoundDevice) for d in devices):
        raise ArgumentError("must be a Context, a BoundDevice or a sequence of BoundDevices", "devices")
    return _kjarni.BoundMultiDevice.from_bound_devices(devices)


def _constant_specs(constant_arrays):
    """name -> (C type, element size, length) from name -> (length, dtype) or an array-like."""
    out = {}
    for name, spec in (constant_arrays or {}).items():
        if hasattr(spec, "shape") and hasattr(spec, "dtype"):
            length, dtype = int(numpy.prod(spec.shape)), spec.dtype
        else:
            length, dtype = spec
            length = int(numpy.prod(length)) if not isinstance(length, int) else length
        dtype = numpy.dtype(dtype)
        out[name] = (str(_ctype(dtype)), dtype.itemsize, length)
    return out


class KernelHub:
    """``program.kernel.name``: the kernels of a program by attribute."""

    def __init__(self, program):
        self._program = program

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._program.get_kernel(name)


# A kernel's pointer parameters of known element types (_kernel_parameters.py): the C++ launch reads
# `_parameters` to refuse an Array of another dtype. None (the class default) checks nothing.
_kjarni.Kernel._parameters = None
_kjarni.PreparedKernel._parameters = None
_kjarni._StaticKernel._parameters = None
_cpp_prepare = _kjarni.Kernel.prepare


def _prepare(self, global_size, local_size=None, local_mem=0):
    prepared = _cpp_prepare(self, global_size, local_size, local_mem)
    prepared._parameters = self._parameters
    return prepared


_prepare.__doc__ = _cpp_prepare.__doc__
_kjarni.Kernel.prepare = _prepare


def _set_constant_array(self, queue, name, arr):
    """Fills a constant array of the program (CUDA only) from a numpy array or a device Array."""
    if isinstance(arr, _kjarni.Array):
        self._set_constant_buffer(queue, name, arr.data)
    else:
        self._set_constant_host(queue, name, numpy.ascontiguousarray(arr).tobytes())


class Program(_kjarni._Program):
    """A program compiled for one or several devices of a context, from a string, a template
    (DefTemplate, Snippet, or a callable returning template text) rendered with ``render_args``
    and ``render_globals`` (numbers, strings, lists, dicts, dtypes, Modules, Snippets, Python
    callables and objects)."""

    def __init__(self, devices, template_src, no_prelude=False, fast_math=False, render_args=(),
                 render_globals=None, compiler_options=None, keep=False, constant_arrays=None):
        super().__init__(as_multi_device(devices), to_template_source(template_src), list(render_args),
                         dict(render_globals or {}), no_prelude, fast_math, list(compiler_options or []), keep,
                         _constant_specs(constant_arrays))
        self.kernel = KernelHub(self)
        self._kernel_parameters = kernel_parameters(self.source(self.devices[0]))

    def get_kernel(self, name):
        """The kernel of that name; ArgumentError listing the program's kernels if none."""
        kernel = super().get_kernel(name)
        kernel._parameters = self._kernel_parameters.get(name)
        return kernel

    @property
    def sources(self):
        """Device -> the full source compiled for it."""
        return {d: self.source(d) for d in self.devices}

    set_constant_array = _set_constant_array

    # Programs from compiled code. `options` are ProgramOptions' fields as keywords: no_prelude,
    # fast_math, compiler_options, include_dirs, keep, arch, jit_max_registers,
    # jit_optimization_level (ArgumentError for another).

    @classmethod
    def _made(cls, origin, devices, payload, options):
        self = cls.__new__(cls)
        _kjarni._Program.__init__(self, origin, as_multi_device(devices), payload, dict(options))
        self.kernel = KernelHub(self)
        sources = [self.source(d) for d in self.devices]
        self._kernel_parameters = kernel_parameters(sources[0]) if sources and sources[0] else {}
        return self

    @classmethod
    def from_binary(cls, devices, binary, **options):
        """A program from compiled code, the same for every device (PyCUDA's ``module_from_buffer``,
        PyOpenCL's ``Program(context, devices, binaries)``): CUDA a cubin, a fatbin or PTX; OpenCL
        what ``program.binary(device)`` gave, or SPIR-V. ``jit_max_registers`` and
        ``jit_optimization_level`` are PyCUDA's ``jit_options`` for PTX."""
        return cls._made("binary", devices, binary, options)

    @classmethod
    def from_file(cls, devices, path, **options):
        """from_binary of a file's contents (PyCUDA's ``module_from_file``: .cubin, .ptx, .fatbin)."""
        return cls._made("file", devices, str(path), options)

    @classmethod
    def link(cls, devices, units, **options):
        """Links separately compiled units (PyCUDA's ``DynamicModule``/``Linker``; PyOpenCL's
        ``link_program``): each unit a source (str, compiled as relocatable code) or compiled code
        (bytes: ``Program.compile_unit``'s, or on CUDA PTX, a relocatable cubin or a fatbin)."""
        return cls._made("link", devices, list(units), options)

    @staticmethod
    def compile_unit(device, source, **options):
        """One source compiled on its own into relocatable code for ``link`` on `device` (PyOpenCL's
        ``Program.compile``; CUDA: relocatable PTX)."""
        return _kjarni._Program._compile_unit(device, source, dict(options))

    def get_global(self, name, device=None):
        """(Buffer, size in bytes) of a global variable (PyCUDA's ``module.get_global``; CUDA only);
        on `device`, or the program's only device."""
        if device is None:
            if len(self.devices) != 1:
                raise ArgumentError("the program has several devices: name one", "device")
            device = self.devices[0]
        g = self._global(device, name)
        return g.buffer, g.size

    @property
    def binaries(self):
        """Device -> its compiled code (PyOpenCL's ``Program.binaries``)."""
        return {d: self.binary(d) for d in self.devices}


class _HostArgument:
    def __init__(self, array):
        self.array = numpy.asarray(array)


class In(_HostArgument):
    """A host array a launch copies to a device temporary first (PyCUDA's ``driver.In``)."""


class Out(_HostArgument):
    """A host array a launch fills from a device temporary afterwards (PyCUDA's ``driver.Out``);
    it must be C-contiguous and writable."""


class InOut(In, Out):
    """Both: copied in before the launch and back after it (PyCUDA's ``driver.InOut``)."""


def _kernel_call(self, queue, global_size, local_size=None, *args, local_mem=0, cu_dynamic_local_mem=0,
                 time_kernel=False):
    """Prepares the kernel for these sizes and enqueues it (grunnur's Kernel.__call__; sizes are
    sequences or, for one dimension, integers). ``cu_dynamic_local_mem`` is grunnur's name for
    ``local_mem``, the bytes of dynamic local memory. Host arrays wrapped in In, Out or InOut are
    copied in before and out after the launch, which then completes before the call returns (as in
    PyCUDA). Returns None; with ``time_kernel=True`` (PyCUDA's), waits and returns the launch's
    seconds measured by events around it. ``prepare(...).launch(queue, *args)`` returns an Event."""
    prepared = self.prepare(global_size, local_size, local_mem or cu_dynamic_local_mem)
    host = [a for a in args if isinstance(a, _HostArgument)]
    if host:
        if not isinstance(queue, _kjarni.Queue):
            raise ArgumentError("In, Out and InOut arguments need a single Queue", "queue")
        for a in host:
            if isinstance(a, Out) and not (a.array.flags.c_contiguous and a.array.flags.writeable):
                raise ArgumentError("an Out array must be C-contiguous and writable", "args")
        temporaries = {id(a): _kjarni.Array.empty(queue.device, a.array.shape, a.array.dtype) for a in host}
        for a in host:
            if isinstance(a, In):
                temporaries[id(a)].set(queue, a.array)
        args = [temporaries[id(a)] if isinstance(a, _HostArgument) else a for a in args]
    start = queue.record_event() if time_kernel else None
    prepared(queue, *args)
    for a in host:
        if isinstance(a, Out):
            temporaries[id(a)].get(queue, dest=a.array)
    if time_kernel:
        end = queue.record_event()
        end.wait()
        return end.time_since(start) / 1e3
    return None


_kjarni.Kernel.__call__ = _kernel_call


class StaticKernel(_kjarni._StaticKernel):
    """A kernel rendered, compiled and prepared once for fixed (virtual) sizes; the template sees
    ``static`` with the id and size functions of the virtual grid (``${static.global_id}(0)``,
    ``${static.skip}()``, ...)."""

    def __init__(self, devices, template_src, name, global_size, local_size=None, render_args=(),
                 render_globals=None, constant_arrays=None, keep=False, fast_math=False, compiler_options=None):
        global_size = (global_size,) if isinstance(global_size, int) else global_size
        local_size = (local_size,) if isinstance(local_size, int) else local_size
        if not isinstance(global_size, dict):
            global_size = list(global_size)
            local_size = None if local_size is None else list(local_size)
        try:
            super().__init__(as_multi_device(devices), to_template_source(template_src), name, global_size,
                             local_size, list(render_args), dict(render_globals or {}), False, fast_math,
                             list(compiler_options or []), keep, _constant_specs(constant_arrays))
        except ArgumentError as e:
            # The sizes were planned against the device's (and the compiled kernel's) limits.
            if e.argument in ("global_size", "local_size"):
                raise VirtualSizeError(str(e), e.argument) from None
            raise
        self._parameters = kernel_parameters(self.source(self.devices[0])).get(name)

    @property
    def sources(self):
        return {d: self.source(d) for d in self.devices}

    def set_constant_array(self, queue, name, arr):
        self._set_constant_host(queue, name, numpy.ascontiguousarray(arr).tobytes())


# PyCUDA's Function attribute names and PyOpenCL's kernel_work_group_info names over kjarni's
# KernelAttributes (kernel.attributes(device)).
_ATTRIBUTE_ALIASES = {
    "max_threads_per_block": "max_total_local_size",   # PyCUDA
    "num_regs": "registers",
    "shared_size_bytes": "shared_bytes",
    "const_size_bytes": "const_bytes",
    "local_size_bytes": "local_bytes",
    "work_group_size": "max_total_local_size",          # PyOpenCL
    "local_mem_size": "shared_bytes",
    "private_mem_size": "local_bytes",
    "preferred_work_group_size_multiple": "preferred_local_size_multiple",
}
for _alias, _name in _ATTRIBUTE_ALIASES.items():
    setattr(_kjarni.KernelAttributes, _alias, property(lambda self, _name=_name: getattr(self, _name)))
_kjarni.KernelAttributes.__repr__ = lambda self: "<KernelAttributes {}>".format(", ".join(
    f"{n}={getattr(self, n)}" for n in ("max_total_local_size", "registers", "shared_bytes", "const_bytes",
                                        "local_bytes", "max_dynamic_local_bytes", "preferred_local_size_multiple")))
