"""kjarni.Statements against the same statements run eagerly (kjarni.evaluate / assign), on fresh
random data: a chain of elementwise statements gives eager's bits (each lazy value rounded to its
dtype where it is defined, no fused multiply-add across statements), errors come where the bad
statement is written, and a statement sees what an earlier one wrote."""

import numpy
import pytest

import kjarni


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.int32])
def test_chain_equals_eager(queue, rng, dtype):
    a, x, b = (kjarni.Array.from_host(queue, (rng.standard_normal(1000) * 4).astype(dtype)) for _ in range(3))
    y_e = kjarni.evaluate(queue, a * x + b)
    z_e = kjarni.evaluate(queue, y_e * y_e - x)
    want = kjarni.evaluate(queue, z_e * 3 + y_e).get(queue)
    with kjarni.Statements(queue) as block:
        y = block.let(a * x + b)
        z = block.let(y * y - x)
        got = block.evaluate(z * 3 + y)
        assert len(block.plan()) == 1 and block.pending == 1  # eagerly three kernels
    numpy.testing.assert_array_equal(got.get(queue), want)


def test_errors_where_written_and_order(queue, rng):
    host = rng.standard_normal(50).astype(numpy.float32)
    x = kjarni.Array.from_host(queue, host)
    ints = kjarni.Array.empty(queue.device, (50,), numpy.int32)
    block = kjarni.Statements(queue)
    y = block.let(x * 2)
    block.assign(x, x + 1)  # overwrites what y reads: y is stored first
    assert block.pending == 2
    with pytest.raises(kjarni.ArgumentError) as lazy:
        block.assign(ints, y)
    with pytest.raises(kjarni.ArgumentError) as eager:
        kjarni.assign(queue, ints, x * 2)
    assert str(lazy.value) == str(eager.value)
    assert block.pending == 2
    out = block.evaluate(y + x)
    block.run()
    numpy.testing.assert_array_equal(out.get(queue), host * 2 + (host + 1))
