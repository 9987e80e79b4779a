"""Tests run once per device through the package's own pytest plugin (kjarni/pytest_plugin.py,
which pytest loads through its entry point): devices are chosen by ``--kjarni-devices`` or
KJARNI_TEST, a comma-separated list of api[:platform_regex[:device_regex]] (``cuda``,
``opencl:Portable``); unset, every device of every available API. The fixtures ``context`` and
``queue`` here are the plugin's ``kjarni_context`` and ``kjarni_queue`` under the names the tests
use. Random data is seeded afresh per run; the seed is printed, and KJARNI_TEST_SEED=<n> replays it."""

import os
import random
import zlib

import numpy
import pytest

import kjarni
from kjarni import pytest_plugin

SEED = int(os.environ.get("KJARNI_TEST_SEED", random.randrange(2**31)))


def pytest_configure(config):
    # The entry point registers the plugin where the package is installed (CI: a wheel in a fresh
    # venv); a checkout on PYTHONPATH has no entry point, so register the module itself then.
    if not config.pluginmanager.has_plugin("kjarni") and not config.pluginmanager.is_registered(pytest_plugin):
        config.pluginmanager.register(pytest_plugin, "kjarni")


def pytest_report_header(config):
    devices = pytest_plugin.selected_devices(config)
    names = ", ".join(f"{d.platform.api.shortcut}:{d.name}" for d in devices) or "none"
    return [f"kjarni devices: {names}", f"KJARNI_TEST_SEED={SEED}"]


@pytest.fixture
def context(kjarni_context):
    """A single-device context, shared by the tests of that device (contexts cache programs)."""
    return kjarni_context


@pytest.fixture
def queue(kjarni_queue):
    return kjarni_queue


@pytest.fixture
def multi_context(request):
    """A context over two devices of one platform (PoCL gives two with POCL_DEVICES="pthread pthread")."""
    context = pytest_plugin.multi_device_context(request.config, 2)
    if context is None:
        pytest.skip("no platform with two selected devices")
    return context


@pytest.fixture
def rng(request):
    return numpy.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])

