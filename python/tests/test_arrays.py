"""Arrays: numpy in and out, views by Python slicing checked against numpy's own, buffers, pools."""

import numpy
import pytest

import kjarni

STRUCT = numpy.dtype([("a", numpy.int32), ("b", numpy.float64), ("c", numpy.int16, (3,))], align=True)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int64, numpy.complex64, numpy.uint8, numpy.float16, STRUCT],
                         ids=str)
def test_round_trip(queue, rng, dtype):
    host = _random(rng, (13, 7), numpy.dtype(dtype))
    a = kjarni.Array.from_host(queue, host)
    assert a.shape == host.shape and a.dtype == host.dtype and a.strides == host.strides
    back = a.get(queue)
    assert back.dtype == host.dtype
    assert back.tobytes() == host.tobytes()  # bit-exact: a copy, no arithmetic
    assert numpy.asarray(a).tobytes() == host.tobytes()


KEYS = [
    numpy.s_[::2, 1:],
    numpy.s_[::-1],
    numpy.s_[3:-2, ::-3],
    numpy.s_[None, 2],
    numpy.s_[..., None, 1:4],
    numpy.s_[-1],
    numpy.s_[1:10:4, None, ::-2],
]


@pytest.mark.parametrize("key", KEYS, ids=[str(k) for k in KEYS])
def test_views_match_numpy(queue, rng, key):
    host = rng.standard_normal((11, 9)).astype(numpy.float32)
    a = kjarni.Array.from_host(queue, host)
    view = a[key]
    expected = host[key]
    assert view.shape == expected.shape
    assert view.strides == expected.strides
    numpy.testing.assert_array_equal(view.get(queue), expected)


def test_set_through_a_view(queue, rng):
    host = rng.integers(-100, 100, (8, 6)).astype(numpy.int32)
    a = kjarni.Array.from_host(queue, host)
    patch = rng.integers(-100, 100, (4, 5)).astype(numpy.int32)
    a[::2, 1:].set(queue, patch)
    host[::2, 1:] = patch
    numpy.testing.assert_array_equal(a.get(queue), host)


def test_empty_set_get_and_layouts(queue, rng):
    host = rng.standard_normal((5, 4)).astype(numpy.float64)
    a = kjarni.Array.empty(queue.device, host.shape, numpy.float64)
    a.set(queue, host)
    numpy.testing.assert_array_equal(a.get(queue), host)
    numpy.testing.assert_array_equal(a.T.get(queue), host.T)
    numpy.testing.assert_array_equal(a.reshape(2, 10).get(queue), host.reshape(2, 10))
    b = kjarni.Array.empty(queue.device, host.shape, numpy.float64)
    b.set(queue, a)
    dest = numpy.empty_like(host)
    assert b.get(queue, dest=dest) is dest
    numpy.testing.assert_array_equal(dest, host)
    assert a.astype(queue, numpy.int32).get(queue).tolist() == host.astype(numpy.int32).tolist()


def test_wrong_shape_names_the_argument(queue):
    a = kjarni.Array.empty(queue.device, (4,), numpy.float32)
    with pytest.raises(kjarni.ArgumentError) as info:
        a.set(queue, numpy.zeros(5, numpy.float32))
    assert info.value.argument == "array"
    with pytest.raises(kjarni.ArgumentError):
        a[7]
    with pytest.raises(kjarni.ArgumentError):
        a.reshape(3)


def test_buffer_and_pool(queue, rng):
    data = rng.integers(0, 255, 256).astype(numpy.uint8)
    pool = kjarni.MemoryPool()
    buffer = pool.allocate(queue, 256)
    assert pool.active_blocks == 1
    buffer.set(queue, data)
    back = numpy.empty_like(data)
    buffer.get_sub_region(16, 64).get(queue, back[:64])
    numpy.testing.assert_array_equal(back[:64], data[16:80])
    del buffer
    assert pool.active_blocks == 0 and pool.held_blocks == 1
    a = kjarni.Array.empty(queue.device, (64,), numpy.float32, allocator=pool)
    assert pool.active_blocks == 1 and a.base.size >= 256


def test_multi_array(multi_context, rng):
    mqueue = kjarni.MultiQueue.on_devices(multi_context.devices)
    host = rng.standard_normal((9, 5)).astype(numpy.float32)
    a = kjarni.MultiArray.from_host(mqueue, host)
    shapes = list(a.shapes.values())
    assert shapes == [(5, 5), (4, 5)]  # EqualSplay: the first part gets the extra row
    numpy.testing.assert_array_equal(a.get(mqueue), host)
    c = kjarni.MultiArray.from_host(mqueue, host, splay=kjarni.MultiArray.CloneSplay())
    assert list(c.shapes.values()) == [(9, 5), (9, 5)]


def _random(rng, shape, dtype):
    if dtype.fields is not None:
        out = numpy.zeros(shape, dtype)
        for name in dtype.names:
            field = out[name]
            field[...] = rng.integers(-1000, 1000, field.shape)
        return out
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = numpy.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def test_get_without_a_queue_needs_the_arrays_own(queue, rng):
    host = rng.standard_normal(10).astype(numpy.float32)
    a = kjarni.Array.empty(queue.device, host.shape, host.dtype)
    a.set(queue, host)
    with pytest.raises(kjarni.ArgumentError) as info:
        numpy.asarray(a)  # a fresh queue would not wait for the set: refused, not raced
    assert info.value.argument == "queue"
    a.queue = queue
    numpy.testing.assert_array_equal(numpy.asarray(a), host)
    doubled = kjarni.evaluate(queue, a * 2)  # results remember the queue that computed them
    numpy.testing.assert_array_equal(numpy.asarray(doubled), host * 2)
