"""Tests run once per device, chosen like the C++ suite's (and pytest-grunnur's, PYOPENCL_TEST's):
KJARNI_TEST is a comma-separated list of api[:platform_regex[:device_regex]] (``cuda``,
``opencl:Portable``); unset, every device of every available API. Random data is seeded afresh
per run; the seed is printed, and KJARNI_TEST_SEED=<n> replays it."""

import os
import random
import zlib

import numpy
import pytest

import kjarni


def _selected_devices():
    spec = os.environ.get("KJARNI_TEST", "").strip()
    devices = []
    if not spec:
        for api in kjarni.API.all_available():
            for platform in api.platforms:
                devices.extend(platform.devices)
        return devices
    for entry in spec.split(","):
        parts = entry.strip().split(":")
        api = kjarni.API.all_by_shortcut(parts[0])[0]
        pf = kjarni.PlatformFilter(include_masks=[parts[1]] if len(parts) > 1 and parts[1] else [])
        df = kjarni.DeviceFilter(include_masks=[parts[2]] if len(parts) > 2 and parts[2] else [])
        for platform in kjarni.Platform.all_filtered(api, pf):
            devices.extend(kjarni.Device.all_filtered(platform, df))
    return devices


DEVICES = _selected_devices()
SEED = int(os.environ.get("KJARNI_TEST_SEED", random.randrange(2**31)))


def pytest_report_header(config):
    names = ", ".join(f"{d.platform.api.shortcut}:{d.name}" for d in DEVICES) or "none"
    return [f"kjarni devices: {names}", f"KJARNI_TEST_SEED={SEED}"]


def _device_id(device):
    return f"{device.platform.api.shortcut}-{DEVICES.index(device)}"


_contexts = {}


@pytest.fixture(params=DEVICES, ids=_device_id)
def context(request):
    """A single-device context, shared by the tests of that device (contexts cache programs)."""
    device = request.param
    if device not in _contexts:
        _contexts[device] = kjarni.Context.from_devices([device])
    return _contexts[device]


@pytest.fixture
def queue(context):
    return kjarni.Queue(context.device)


@pytest.fixture
def multi_context():
    """A context over two devices of one platform (PoCL gives two with POCL_DEVICES="pthread pthread")."""
    for device in DEVICES:
        same = [d for d in DEVICES if d.platform == device.platform]
        if len(same) >= 2:
            key = tuple(same[:2])
            if key not in _contexts:
                _contexts[key] = kjarni.Context.from_devices(list(key))
            return _contexts[key]
    pytest.skip("no platform with two selected devices")


@pytest.fixture
def rng(request):
    return numpy.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])
