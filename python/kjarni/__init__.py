"""kjarni: GPU programs written once for CUDA and OpenCL, in grunnur's vocabulary.

    import numpy, kjarni
    context = kjarni.Context.from_devices([kjarni.any_api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    a = kjarni.Array.from_host(queue, numpy.arange(10, dtype=numpy.float32))
    print(kjarni.evaluate(queue, 2 * a + 1).get(queue))
"""

from . import _kjarni
from . import errors
from . import _signatures
_signatures.wrap_module(_kjarni)  # before anything below takes a reference to a binding
from .errors import (
    Error, BackendError, OutOfMemoryError, ApiUnavailableError, NotFoundError, UnsupportedError, CompileError,
    ArgumentError, RenderError, PeerError, LinkError,
)
from ._kjarni import (
    APIID, API, Platform, PlatformFilter, Device, DeviceFilter, DeviceParameters, DeviceType,
    all_api_ids, cuda_api_id, opencl_api_id, platforms_and_devices_by_mask, select_devices,
    Context, BoundDevice, BoundMultiDevice, Queue, MultiQueue, Event, queue_priority_range,
    Buffer, MemoryPool, default_memory_pool, set_default_memory_pool, Array, MultiArray, Splay, CloneSplay, EqualSplay,
    Template, DefTemplate, Snippet, Module, render_with_modules,
    Kernel, PreparedKernel, BoundKernel, Expr, ElementwiseKernel, Statements,
    assign, fill, sqrt, exp, log, sin, cos, tanh, absolute, minimum, maximum, where, clip,
    may_share_memory, array_split, hsplit, vsplit, dsplit, atleast_1d, atleast_2d, atleast_3d,
    VirtualManager, TrivialManager, ZeroOffsetManager, VirtualAllocator, VirtualAllocationStatistics,
    virtual_allocation_id,
)
from . import functions, blas, collectives
from .collectives import ReduceOp, CollectiveEngine, CliqueId, Communicator
from ._algorithms import (  # noqa: A004 (numpy's names)
    evaluate, sum, prod, mean, min, max, argmin, argmax, any, all, concatenate, stack, take,
    nansum, nanprod, nanmean, nanmin, nanmax, nanargmin, nanargmax, var, std, nanvar, nanstd,
    ReductionKernel, ScanKernel, cumsum, cumprod, cumsum_parts, cumprod_parts, dot, reduce_whole, reduce_parts, hstack, vstack, dstack, split,
    reshape, ascontiguousarray, asfortranarray, asarray, transfer,
)
from . import dtypes
from . import _array, _templates, _dlpack, _grunnur, _numpy, _methods  # noqa: F401  (attach the Python-side methods)
from ._program import Program, StaticKernel, KernelHub, In, Out, InOut
from ._dlpack import from_dlpack
from ._kjarni import KernelAttributes, CachePreference, GlobalVariable
from ._memory import (
    HostMemory, HostMemoryPool, ManagedMemory, ManagedHostAccess, ManagedAttach, SVMPool, PooledSVM, IpcEvent,
    PitchedBuffer, PitchedArray, DeferredAllocator, ImmediateAllocator, MemoryType,
    managed_memory_capabilities, allocate_pitched, fill_2d, copy_rect, pointer_attributes, mem_get_info,
    host_memory_of, pagelocked_empty, pagelocked_zeros, pagelocked_empty_like, pagelocked_zeros_like,
    register_host_memory, managed_empty, managed_zeros, managed_host_view, svm_empty,
)
from ._images import (
    Image, ImageFormat, ImageShape, ImageRegion, Sampler, SampledImage, ChannelOrder, ChannelType, AddressMode,
    FilterMode, image_limits, image_format, image_from_array,
)
from . import characterize
from ._device import DeviceProperties
from ._grunnur import ArrayMetadata, AsArrayMetadata, ArrayLike
from .errors import (ArgumentTypeError, AxisError, CompilationError, DivisionByZeroError, IndexOutOfBoundsError,
                     ScalarOverflowError, VirtualSizeError)

_numpy.attach()

__version__ = _kjarni.__version__


def get_include():
    """The folder holding kjarni's C++ headers (``#include <kjarni/kjarni.hpp>``), installed with the
    package, for extensions written against the C++ API (pybind11's and nanobind's get_include)."""
    import pathlib
    return str(pathlib.Path(__file__).resolve().parent / "include")


def get_cmake_dir():
    """The folder of kjarni's CMake package for extensions written against the C++ API:
    ``find_package(kjarni CONFIG PATHS <this>)`` gives the target ``kjarni::kjarni`` (the static
    library built with this package, and its headers)."""
    import pathlib
    return str(pathlib.Path(__file__).resolve().parent / "lib" / "cmake" / "kjarni")


def __getattr__(name):
    # grunnur's dynamic module attributes: any_api, cuda_api, opencl_api.
    if name == "any_api":
        apis = API.all_available()
        if not apis:
            raise ApiUnavailableError("no GPU API is available here (neither CUDA nor OpenCL has a platform)")
        return apis[0]
    if name == "cuda_api":
        return API.from_api_id(cuda_api_id())
    if name == "opencl_api":
        return API.from_api_id(opencl_api_id())
    raise AttributeError(f"module 'kjarni' has no attribute {name!r}")
