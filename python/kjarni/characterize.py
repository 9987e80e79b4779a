"""Device characterization, with PyOpenCL's names (``pyopencl.characterize``): local memory banks,
SIMD group sizes, usable local memory, bank conflicts, fast-math options and driver quirks.

Every function takes a ``Device``, a ``BoundDevice`` or a ``Queue`` (its device). Where PyOpenCL
guesses, kjarni answers None when the figure is unknown for the device (and
``local_memory_banks_unknown_reason`` says why).
"""

from . import _kjarni

_ch = _kjarni._characterize
DeviceFacts = _ch.DeviceFacts
LocalMemoryBanks = _ch.LocalMemoryBanks


def _device(dev):
    if isinstance(dev, _kjarni.Queue):
        dev = dev.device
    if isinstance(dev, _kjarni.BoundDevice):
        dev = dev.device
    return dev


def facts_of(dev):
    """What characterization reads of the device (vendor, platform, warp size, local memory, ...)."""
    return _ch.facts_of(_device(dev))


def local_memory_banks(dev):
    """The device's local memory banks (count, granularity in bytes, work items served at once),
    or None where unknown."""
    return _ch.local_memory_banks(_device(dev))


def local_memory_banks_unknown_reason(dev):
    """Why local_memory_banks is None for the device ("" when it is known)."""
    return _ch.local_memory_banks_unknown_reason(_device(dev))


def local_memory_bank_count(dev):
    """Banks of local memory (PyOpenCL's ``local_memory_bank_count``), or None where unknown."""
    banks = local_memory_banks(dev)
    return None if banks is None else banks.count


def local_memory_access_granularity(dev):
    """Bytes per bank word (PyOpenCL's ``local_memory_access_granularity``), or None."""
    banks = local_memory_banks(dev)
    return None if banks is None else banks.granularity


def simultaneous_work_items_on_local_access(dev):
    """Work items whose local memory accesses are served together (PyOpenCL's name), or None."""
    banks = local_memory_banks(dev)
    return None if banks is None else banks.simultaneous_work_items


def usable_local_mem_size(dev, nargs=None):
    """Local memory a kernel may use, less what its arguments take (PyOpenCL's name)."""
    return _ch.usable_local_mem_size(_device(dev), nargs)


def simd_group_size(dev, type_size):
    """Work items that execute in lockstep for a type of `type_size` bytes (PyOpenCL's
    ``get_simd_group_size``), or None where unknown."""
    return _ch.simd_group_size(_device(dev), type_size)


get_simd_group_size = simd_group_size


def get_fast_inaccurate_build_options(dev):
    """Compiler options for fast, less accurate math on the device (PyOpenCL's name)."""
    return _ch.fast_inaccurate_build_options(_device(dev))


def why_not_local_access_conflict_free(dev, itemsize, array_shape, array_stored_shape=None, axis=None):
    """(multiplicity, explanation) of bank conflicts when each work item reads a row of an array of
    `array_shape` stored as `array_stored_shape` (padded) in local memory (PyOpenCL's function:
    multiplicity 1 is conflict-free). None's where the banks are unknown are raised as
    UnsupportedError by the library."""
    multiplicity, _minimum, explanation = _ch.why_not_local_access_conflict_free(
        _device(dev), itemsize, list(array_shape), list(array_stored_shape or array_shape), axis)
    return multiplicity, explanation


def local_access_conflicts(banks, itemsize, element_offsets):
    """(multiplicity, minimum, explanation) for work items reading the given element offsets of a
    local array at once."""
    return _ch.local_access_conflicts(banks, itemsize, list(element_offsets))


def nv_compute_capability(dev):
    """(major, minor) of an NVIDIA device (CUDA, or NVIDIA's OpenCL), else None (PyOpenCL's name)."""
    return facts_of(dev).compute_capability


def get_pocl_version(dev):
    """(major, minor) of the PoCL platform the device belongs to, else None (PyOpenCL's name)."""
    facts = facts_of(dev)
    return _ch.pocl_version(facts.platform_name, facts.platform_version)


def has_struct_arg_count_bug(dev):
    """The name of the driver bug that miscounts struct arguments ("pocl", "apple"), or False
    (PyOpenCL's name)."""
    return _ch.has_struct_arg_count_bug(_device(dev)) or False


def has_amd_double_support(dev):
    return _ch.has_amd_double_support(_device(dev))


def driver_quirks(dev):
    """The known driver quirks that apply to the device: (name, description, workaround)."""
    return _ch.driver_quirks(_device(dev))
