"""PyCUDA's and PyOpenCL's layers that the package binds: queue priorities and is_done, event flags
and timing, In/Out/InOut launch arguments and timed launches, and the pytest plugin."""

import os

import numpy
import pytest

import kjarni
import kjarni.pytest_plugin

pytest_plugins = ["pytester"]


def test_queue_priority_and_is_done(context):
    device = context.device
    low, high = kjarni.queue_priority_range(device)
    queue = kjarni.Queue(device, priority=low)
    assert queue.priority == low
    if device.device.platform.api.shortcut == "opencl":
        assert (low, high) == (0, 0)
        with pytest.raises(kjarni.UnsupportedError):
            kjarni.Queue(device, priority=1)
    a = kjarni.Array.zeros(queue, 1 << 16, numpy.float32)
    kjarni.fill(queue, a, numpy.float32(3))
    queue.synchronize()
    # OpenCL answers by a marker watched for at most 2 ms (Queue::is_done's promise), which a
    # loaded CPU device may not complete in time: an idle queue says so within a few tries.
    assert any(queue.is_done() for _ in range(100))
    untimed = queue.record_event(timing=False)
    untimed.synchronize()
    assert untimed.query() and untimed.is_complete


def test_in_out_inout_and_timed_launch(queue, rng):
    program = kjarni.Program(queue.device, """
    KERNEL void axpy(GLOBAL_MEM float *y, GLOBAL_MEM const float *x, GLOBAL_MEM float *acc, float a)
    {
        const SIZE_T i = get_global_id(0);
        y[i] = a * x[i];
        acc[i] = acc[i] + x[i];
    }""")
    x = rng.standard_normal(64).astype(numpy.float32)
    acc = rng.standard_normal(64).astype(numpy.float32)
    expected_acc = acc + x
    y = numpy.zeros(64, numpy.float32)
    seconds = program.kernel.axpy(queue, 64, None, kjarni.Out(y), kjarni.In(x), kjarni.InOut(acc),
                                  numpy.float32(2), time_kernel=True)
    assert isinstance(seconds, float) and 0 <= seconds < 60
    numpy.testing.assert_array_equal(y, numpy.float32(2) * x)  # one rounding each: exact
    numpy.testing.assert_array_equal(acc, expected_acc)
    with pytest.raises(kjarni.ArgumentError, match="Out array must be C-contiguous"):
        program.kernel.axpy(queue, 32, None, kjarni.Out(numpy.zeros(128, numpy.float32)[::2]), kjarni.In(x),
                            kjarni.InOut(acc), numpy.float32(2))


def test_pytest_plugin_parametrizes_over_devices(pytester):
    # The devices the plugin selects in the subprocess: $KJARNI_TEST's (inherited), else all.
    n = len(kjarni.pytest_plugin.select_devices(os.environ.get("KJARNI_TEST", "").strip()))
    pytester.makeconftest("""
from kjarni.pytest_plugin import generate_tests_for_kjarni as pytest_generate_tests
""")
    pytester.makepyfile("""
import numpy, kjarni

def test_fixtures(kjarni_queue, kjarni_device):
    a = kjarni.Array.from_host(kjarni_queue, numpy.arange(4, dtype=numpy.int32))
    assert a.device.device == kjarni_device and list(a.get()) == [0, 1, 2, 3]

def test_pyopencl_style(device, queue):
    assert queue.device.device == device
""")
    # The plugin is loaded by its entry point (pytest11), as in a user's environment.
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2 * n)
    chosen = kjarni.pytest_plugin.select_devices("opencl")
    result = pytester.runpytest_subprocess("--kjarni-devices=opencl")
    result.assert_outcomes(passed=2 * len(chosen))
