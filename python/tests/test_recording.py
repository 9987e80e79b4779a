"""Recorded launch sequences from Python (kjarni/recording.hpp through kjarni._kjarni.Recorder):
a recording replays what eager launches do, takes changed arguments, and refuses what it cannot
record with RecordingError naming the culprit."""

import numpy
import pytest

import kjarni
from kjarni import _kjarni

SOURCE = """
KERNEL void axpb(GLOBAL_MEM float *y, GLOBAL_MEM const float *x, float a, float b)
{
    const SIZE_T i = get_global_id(0);
    y[i] = a * x[i] + b;
}
"""


@pytest.mark.parametrize("native", [True, False])
def test_recording_replays_and_takes_changed_arguments(context, queue, rng, native):
    program = kjarni.Program(context.device, SOURCE)
    kernel = program.kernel.axpb.prepare([256])
    x = rng.standard_normal(256).astype(numpy.float32)
    x2 = rng.standard_normal(256).astype(numpy.float32)
    x_dev, x2_dev = kjarni.Array.from_host(queue, x), kjarni.Array.from_host(queue, x2)
    y_dev = kjarni.Array.from_host(queue, numpy.full(256, 7, numpy.float32))
    z_dev = kjarni.Array.empty(context.device, x.shape, x.dtype)

    with _kjarni.Recorder(queue, native) as recorder:
        kernel(queue, y_dev, x_dev, numpy.float32(2), numpy.float32(0))
        scale = recorder.argument(2)
        kernel(queue, z_dev, y_dev, numpy.float32(1), numpy.float32(1))
        offset = recorder.argument(3)
        assert recorder.launches == 2
    recording = recorder.recording
    assert recording.launches == 2 and isinstance(recording.mechanism, str)
    # Nothing ran while recording.
    numpy.testing.assert_array_equal(y_dev.get(queue), numpy.full(256, 7, numpy.float32))

    recording.replay()
    # 2 * x is exact; adding 1 rounds once, as numpy's float32 addition does.
    numpy.testing.assert_array_equal(y_dev.get(queue), numpy.float32(2) * x)
    numpy.testing.assert_array_equal(z_dev.get(queue), numpy.float32(2) * x + numpy.float32(1))
    recording.set(scale, numpy.float32(4))
    recording.set((0, 1), x2_dev)
    recording.set(offset, numpy.float32(-0.5))
    recording.replay(queue)
    numpy.testing.assert_array_equal(y_dev.get(queue), numpy.float32(4) * x2)
    numpy.testing.assert_array_equal(z_dev.get(queue), numpy.float32(4) * x2 + numpy.float32(-0.5))

    with pytest.raises(_kjarni.RecordingError) as info:
        recording.set(scale, numpy.float64(1))
    assert info.value.culprit == "argument 2 of launch 0 (axpb)"
    assert isinstance(info.value, kjarni.errors.Error)


def test_recording_refuses_host_transfers_and_abandons(context, queue, rng):
    x_dev = kjarni.Array.from_host(queue, rng.standard_normal(16).astype(numpy.float32))
    with pytest.raises(_kjarni.RecordingError) as info:
        with _kjarni.Recorder(queue):
            x_dev.get(queue)
    assert info.value.culprit == "Buffer::get"
    # Abandoned by the with block: the queue runs eagerly again.
    assert x_dev.get(queue).shape == (16,)
