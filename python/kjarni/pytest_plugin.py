"""A pytest plugin for users' own suites: tests parametrized over kjarni's devices, as PyOpenCL's
``pytest_generate_tests_for_pyopencl`` and grunnur's pytest options do. Installed with the package
(entry point ``pytest11``), it adds:

- the option ``--kjarni-devices=api[:platform_regex[:device_regex]],...`` (default: the environment's
  ``KJARNI_TEST``, else every device of every available API);
- the fixtures ``kjarni_device`` (a Device; a test using it runs once per selected device),
  ``kjarni_context`` (a one-device Context, shared by the tests of that device) and
  ``kjarni_queue`` (a new Queue on it);
- ``selected_devices(config)`` and ``multi_device_context(config, count)`` for fixtures of one's own;
- ``generate_tests_for_kjarni(metafunc)`` (PyOpenCL's ``pytest_generate_tests_for_pyopencl``), for a
  conftest.py that wants that style:
  it parametrizes the arguments named ``device``, ``context`` and ``queue``."""

import os

import pytest

import kjarni


def pytest_addoption(parser):
    parser.getgroup("kjarni").addoption(
        "--kjarni-devices", action="store", default=None,
        help="devices to run kjarni tests on: api[:platform_regex[:device_regex]],... (default: $KJARNI_TEST, "
             "else all)")


def select_devices(spec):
    """The Devices a specification selects (see the module's docstring); all devices when empty."""
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


def selected_devices(config):
    """The Devices this run selects (``--kjarni-devices``, else ``KJARNI_TEST``, else all)."""
    spec = config.getoption("kjarni_devices", default=None)
    return select_devices(spec if spec is not None else os.environ.get("KJARNI_TEST", "").strip())


_devices = selected_devices


def multi_device_context(config, count=2):
    """A context over the first `count` selected devices of one platform (made once per run), or
    None where no platform has that many selected."""
    devices = selected_devices(config)
    for device in devices:
        same = [d for d in devices if d.platform == device.platform]
        if len(same) >= count:
            key = tuple(same[:count])
            if key not in _contexts:
                _contexts[key] = kjarni.Context.from_devices(list(key))
            return _contexts[key]
    return None


def _ids(devices):
    return [f"{d.platform.api.shortcut}:{i}:{d.name}" for i, d in enumerate(devices)]


_contexts = {}


def _context_of(device):
    if device not in _contexts:
        _contexts[device] = kjarni.Context.from_devices([device])
    return _contexts[device]


def pytest_generate_tests(metafunc):
    if {"kjarni_device", "kjarni_context", "kjarni_queue"} & set(metafunc.fixturenames):
        devices = _devices(metafunc.config)
        metafunc.parametrize("kjarni_device", devices, ids=_ids(devices), scope="session")


@pytest.fixture(scope="session")
def kjarni_context(kjarni_device):
    return _context_of(kjarni_device)


@pytest.fixture
def kjarni_queue(kjarni_context):
    return kjarni.Queue(kjarni_context.device)


def generate_tests_for_kjarni(metafunc):
    """PyOpenCL's pattern: call it from a conftest.py's ``pytest_generate_tests``; a test taking
    ``device``, ``context`` or ``queue`` then runs once per selected device with those made for it."""
    wanted = [n for n in ("device", "context", "queue") if n in metafunc.fixturenames]
    if not wanted:
        return
    devices = _devices(metafunc.config)
    values = []
    for device in devices:
        context = _context_of(device)
        made = {"device": device, "context": context, "queue": kjarni.Queue(context.device)}
        values.append(tuple(made[n] for n in wanted) if len(wanted) > 1 else made[wanted[0]])
    metafunc.parametrize(",".join(wanted), values, ids=_ids(devices))
