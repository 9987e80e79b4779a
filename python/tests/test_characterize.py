"""Device characterization with PyOpenCL's names (kjarni.characterize): facts of every device, the
bank-conflict analysis against an independent count in Python, and what a PoCL or NVIDIA device
must report."""

import re

import numpy
import pytest

import kjarni
from kjarni import characterize


def test_facts_and_figures(queue):
    facts = characterize.facts_of(queue)
    device = queue.device.device
    assert facts.cuda == (queue.device.context.api.id == kjarni.cuda_api_id())
    assert facts.local_mem_size > 0 and facts.warp_size >= 1
    usable = characterize.usable_local_mem_size(device)
    assert 0 < usable <= facts.local_mem_size
    assert characterize.usable_local_mem_size(queue.device, nargs=4) <= usable
    banks = characterize.local_memory_banks(device)
    if banks is None:
        assert characterize.local_memory_bank_count(device) is None
        assert characterize.local_memory_banks_unknown_reason(device)
    else:
        assert characterize.local_memory_bank_count(device) == banks.count > 0
        assert characterize.local_memory_access_granularity(device) == banks.granularity > 0
        assert characterize.simultaneous_work_items_on_local_access(device) == banks.simultaneous_work_items > 0
    for type_size in (1, 4, 8):
        simd = characterize.get_simd_group_size(device, type_size)
        assert simd is None or simd >= 1
    options = characterize.get_fast_inaccurate_build_options(device)
    assert options and all(isinstance(o, str) for o in options)
    assert characterize.has_struct_arg_count_bug(device) in (False, "pocl", "apple") or \
        isinstance(characterize.has_struct_arg_count_bug(device), str)
    for name, description, workaround in characterize.driver_quirks(device):
        assert name and description
    if facts.cuda:
        assert characterize.nv_compute_capability(device) is not None
        assert characterize.local_memory_bank_count(device) == 32
        assert characterize.get_simd_group_size(device, 4) == 32
    match = re.search(r"PoCL (\d+)\.(\d+)", facts.platform_version, re.IGNORECASE)
    if match:
        assert characterize.get_pocl_version(device) == (int(match.group(1)), int(match.group(2)))
    elif not facts.cuda:
        assert characterize.get_pocl_version(device) is None


def passes_needed(banks, itemsize, offsets):
    """An independent count: the bank words each work item touches, and per bank the distinct
    words asked for at once (one pass serves one word per bank)."""
    per_bank = {}
    for offset in offsets:
        first = offset * itemsize // banks.granularity
        last = (offset * itemsize + itemsize - 1) // banks.granularity
        for word in range(first, last + 1):
            per_bank.setdefault(word % banks.count, set()).add(word)
    return max(len(words) for words in per_bank.values())


@pytest.mark.parametrize("itemsize", [4, 8])
def test_local_access_conflicts_against_a_count(itemsize, rng):
    banks = characterize.LocalMemoryBanks(32, 4, 32)
    for stride in (1, 2, 16, 32, 33, 64, 65):
        offsets = [w * stride for w in range(32)]
        multiplicity, minimum, explanation = characterize.local_access_conflicts(banks, itemsize, offsets)
        assert multiplicity == passes_needed(banks, itemsize, offsets), stride
        assert (explanation == "") == (multiplicity <= minimum)
    offsets = rng.integers(0, 4096, 32).tolist()
    multiplicity, _, _ = characterize.local_access_conflicts(banks, itemsize, offsets)
    assert multiplicity == passes_needed(banks, itemsize, offsets)
    with pytest.raises(kjarni.ArgumentError):
        characterize.local_access_conflicts(banks, 0, [0])


def test_why_not_local_access_conflict_free(queue):
    device = queue.device.device
    banks = characterize.local_memory_banks(device)
    if banks is None:
        with pytest.raises(kjarni.UnsupportedError):
            characterize.why_not_local_access_conflict_free(device, 4, (32, 32))
        return
    # Work items stepping down a column of a square float array: every item on one bank unless
    # the rows are padded by one word (the classic transpose padding).
    n = banks.count
    column, why = characterize.why_not_local_access_conflict_free(device, 4, (n, n), axis=0)
    expected = passes_needed(banks, 4, [w * n for w in range(min(n, banks.simultaneous_work_items))])
    assert column == expected and (column == 1) == (why == "")
    padded, why = characterize.why_not_local_access_conflict_free(device, 4, (n, n), (n, n + 1), axis=0)
    assert padded == passes_needed(banks, 4, [w * (n + 1) for w in range(min(n, banks.simultaneous_work_items))])


def test_device_properties_against_raw_attributes(queue):
    device = queue.device.device
    properties = device.properties
    assert properties.total_memory == device.total_memory() > 0
    assert properties.max_allocation_size > 0
    attributes = device.get_attributes()
    assert attributes and device.get_attribute("no such attribute") is None
    if queue.device.context.api.id == kjarni.cuda_api_id():
        major, minor = device.compute_capability()
        assert (major, minor) == (attributes["COMPUTE_CAPABILITY_MAJOR"], attributes["COMPUTE_CAPABILITY_MINOR"])
        assert properties.clock_rate_khz == attributes["CLOCK_RATE"]
        assert device.pci_bus_id() is not None
    else:
        assert properties.total_memory == attributes["CL_DEVICE_GLOBAL_MEM_SIZE"]
        assert properties.max_allocation_size == device.get_attribute("CL_DEVICE_MAX_MEM_ALLOC_SIZE")
        assert properties.unified_memory == bool(attributes["CL_DEVICE_HOST_UNIFIED_MEMORY"])
        if properties.compute_capability is None:
            with pytest.raises(kjarni.UnsupportedError):
                device.compute_capability()
