"""Collectives (kjarni.collectives) against numpy on fresh random data: over the parts of a
MultiArray (all ranks driven by this thread), per rank (ranks as Python threads: the calls release
the GIL while they wait), in pygpu's vocabulary, through a rendezvous, and bad input. On two PoCL
devices (POCL_DEVICES="pthread pthread") this is kjarni's fallback engine; on CUDA with NCCL, NCCL.

Kernels are compiled per (dtype, operation): every operation runs on float32 and int32, one on each
other dtype (the sweep of the C++ suite, whose compiled programs the disk cache then serves)."""

import functools
import random
import threading

import numpy
import pytest

import kjarni
from kjarni import collectives

OPS = ("sum", "prod", "max", "min", "avg")
OTHER_DTYPES = [(numpy.float64, "sum"), (numpy.float16, "avg"), (numpy.int8, "prod"), (numpy.uint8, "max"),
                (numpy.int64, "avg"), (numpy.uint64, "min"), (numpy.uint32, "sum")]
SWEEP = [(d, op) for d in (numpy.float32, numpy.int32) for op in OPS] + OTHER_DTYPES
TIMEOUT = 60.0  # seconds: a rank that fails leaves the others a PeerError within this, not a hang


def random_values(rng, dtype, shape):
    """Floats over [-1, 1) (float16: [-4, 4)); integers over their whole range, so that sums and
    products wrap around."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "f":
        scale = 4 if dtype == numpy.float16 else 1
        return (rng.uniform(-scale, scale, shape)).astype(dtype)
    info = numpy.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def check_reduced(got, values, op, what):
    """`got` against the ranks' `values` combined by `op` as NCCL defines it: integers exactly
    (sum and prod wrap around, avg is the wrapped sum divided by the count toward zero); floats
    within the rounding of a sum (or product) of `count` terms in any order (max and min exactly)."""
    dtype = values[0].dtype
    count = len(values)
    got = numpy.asarray(got)
    assert got.dtype == dtype and got.shape == values[0].shape, what
    if dtype.kind in "iu":
        with numpy.errstate(over="ignore"):
            if op in ("sum", "avg"):
                expected = functools.reduce(numpy.add, values)
            elif op == "prod":
                expected = functools.reduce(numpy.multiply, values)
            else:
                expected = functools.reduce(numpy.maximum if op == "max" else numpy.minimum, values)
        if op == "avg":  # truncated toward zero, in Python integers (no overflow, no float)
            flat = [(abs(int(v)) // count) * (1 if v >= 0 else -1) for v in expected.ravel()]
            expected = numpy.array(flat, dtype=dtype).reshape(expected.shape)
        numpy.testing.assert_array_equal(got, expected, err_msg=what)
        return
    exact = [v.astype(numpy.float64) for v in values]
    if op in ("max", "min"):
        expected = functools.reduce(numpy.maximum if op == "max" else numpy.minimum, values)
        numpy.testing.assert_array_equal(got, expected, err_msg=what)
        return
    eps = numpy.finfo(dtype).eps
    tiny = numpy.finfo(dtype).smallest_subnormal
    if op == "prod":
        expected = functools.reduce(numpy.multiply, exact)
        bound = count * eps * numpy.abs(expected) + tiny
    else:
        expected = functools.reduce(numpy.add, exact)
        bound = count * eps * functools.reduce(numpy.add, [numpy.abs(v) for v in exact]) + tiny
        if op == "avg":
            expected = expected / count
            bound = bound / count + tiny
    error = numpy.abs(got.astype(numpy.float64) - expected)
    assert numpy.all(error <= bound), f"{what}: worst error {error.max()} (bound {bound.max()})"


@pytest.fixture
def comms(multi_context):
    mqueue = kjarni.MultiQueue.on_devices(multi_context.devices)
    return kjarni.Communicator.create_all(mqueue, timeout=TIMEOUT)


def queues_of(comms):
    return {c.queue.device: c.queue for c in comms}


def per_rank_clone(comms, values):
    """A CloneSplay MultiArray whose part on rank r's device holds values[r]."""
    devices = kjarni.BoundMultiDevice.from_bound_devices([c.queue.device for c in comms])
    array = kjarni.MultiArray.empty(devices, values[0].shape, values[0].dtype, splay=kjarni.CloneSplay())
    for comm in comms:
        array.subarrays[comm.queue.device].set(comm.queue, values[comm.rank])
    return array


def part_of(array, comm):
    return array.subarrays[comm.queue.device].get(comm.queue)


@pytest.mark.parametrize("dtype,op", SWEEP, ids=[f"{numpy.dtype(d).name}-{op}" for d, op in SWEEP])
def test_multi_array_reductions(comms, rng, dtype, op):
    n = len(comms)
    what = f"{numpy.dtype(dtype).name} {op} over a MultiArray"
    shape = (n * 37 + 1, 3)  # an extent the count does not divide: the fallback's blocks are uneven
    values = [random_values(rng, dtype, shape) for _ in comms]
    src = per_rank_clone(comms, values)
    reduced = collectives.all_reduce(comms, src, op=op)
    assert isinstance(reduced, kjarni.MultiArray)
    for comm in comms:
        check_reduced(part_of(reduced, comm), values, op, what + " all_reduce")
    numpy.testing.assert_array_equal(reduced.get(), part_of(reduced, comms[0]))  # remembers its queues

    dest = kjarni.MultiArray.empty(src.devices, shape, dtype, splay=kjarni.CloneSplay())
    root = n - 1
    collectives.reduce(comms, src, dest, op, root)
    check_reduced(part_of(dest, comms[root]), values, op, what + " reduce")

    even = (n * 11, 2)
    blocks = [random_values(rng, dtype, even) for _ in comms]
    scattered = collectives.reduce_scatter(comms, per_rank_clone(comms, blocks), op=kjarni.ReduceOp.__members__[op])
    for comm in comms:
        r = comm.rank
        check_reduced(part_of(scattered, comm), [b[r * 11:(r + 1) * 11] for b in blocks], op, what + " reduce_scatter")

    collectives.all_reduce(comms, src, src, op)  # in place
    for comm in comms:
        check_reduced(part_of(src, comm), values, op, what + " all_reduce in place")


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.uint8, numpy.float64])
def test_multi_array_moves(comms, rng, dtype):
    """broadcast, all_gather, all_to_all: bytes moved, compared exactly."""
    n = len(comms)
    shape = (n * 6, 5)
    values = [random_values(rng, dtype, shape) for _ in comms]
    array = per_rank_clone(comms, values)
    assert collectives.broadcast(comms, array, 1) is array
    for comm in comms:
        numpy.testing.assert_array_equal(part_of(array, comm), values[1])

    mqueue = kjarni.MultiQueue([c.queue for c in comms])
    split = kjarni.MultiArray.from_host(mqueue, values[0], splay=kjarni.EqualSplay())
    gathered = collectives.all_gather(comms, split)
    for comm in comms:
        numpy.testing.assert_array_equal(part_of(gathered, comm), values[0])

    src = per_rank_clone(comms, values)
    dest = kjarni.MultiArray.empty(src.devices, shape, dtype, splay=kjarni.CloneSplay())
    collectives.all_to_all(comms, src, dest)
    block = shape[0] // n
    for comm in comms:
        j = comm.rank
        numpy.testing.assert_array_equal(part_of(dest, comm),
                                         numpy.concatenate([v[j * block:(j + 1) * block] for v in values]))


def test_engine_and_ranks(comms, multi_context):
    for i, comm in enumerate(comms):
        assert comm.rank == i and comm.count == len(comms)
        assert comm.engine in ("NCCL", "fallback")
        if multi_context.api.id != kjarni.cuda_api_id():
            assert comm.engine == "fallback"
        assert not comm.aborted
        assert f"rank {i} of {len(comms)}" in repr(comm)


def run_ranks(count, body):
    """body(rank) on `count` threads at once; their results by rank, the first exception re-raised."""
    results, errors = [None] * count, []

    def run(rank):
        try:
            results[rank] = body(rank)
        except BaseException as error:  # noqa: BLE001 (handed to the test's thread)
            errors.append(error)

    threads = [threading.Thread(target=run, args=(r,)) for r in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


PER_RANK = [(numpy.float32, OPS), (numpy.int32, OPS), (numpy.float16, ("avg",)), (numpy.int64, ("avg",)),
            (numpy.uint8, ("max",)), (numpy.float64, ("sum",))]


@pytest.mark.parametrize("dtype,ops", PER_RANK, ids=[numpy.dtype(d).name for d, _ in PER_RANK])
def test_per_rank_threads(multi_context, rng, dtype, ops):
    """Every collective per rank; three ranks on two devices (two share one, with queues of their
    own) for float32 and int32, two for the others."""
    devices = multi_context.devices
    count = 3 if dtype in (numpy.float32, numpy.int32) else 2
    shape = (count * 37 + 2,)
    even = (count * 8, 3)
    values = [random_values(rng, dtype, shape) for _ in range(count)]
    blocks = [random_values(rng, dtype, even) for _ in range(count)]
    # NCCL takes one rank per device: ranks that share a device go through the fallback engine.
    engine = kjarni.CollectiveEngine.fallback if count > len(devices) else kjarni.CollectiveEngine.automatic
    clique = kjarni.CliqueId.create(kjarni.Queue(devices[0]), engine)
    assert clique.engine in (kjarni.CollectiveEngine.nccl, kjarni.CollectiveEngine.fallback)
    sent = clique.bytes()  # as another rank would receive it
    assert len(sent) == kjarni.CliqueId.size

    def rank_body(rank):
        queue = kjarni.Queue(devices[rank % len(devices)])
        comm = kjarni.Communicator(queue, kjarni.CliqueId.from_bytes(sent), count, rank, timeout=TIMEOUT)
        src = kjarni.Array.from_host(queue, values[rank])
        src_blocks = kjarni.Array.from_host(queue, blocks[rank])
        out = {}
        for op in ops:
            out["all_reduce", op] = comm.all_reduce(src, op=op).get()
            reduced = comm.reduce(src, op=op, root=1)
            assert (reduced is None) == (rank != 1)
            out["reduce", op] = None if reduced is None else reduced.get()
            out["reduce_scatter", op] = comm.reduce_scatter(src_blocks, op=op).get()
        copy = src.copy(queue)
        assert comm.all_reduce(copy, copy, ops[0]) is not None  # in place
        out["in_place"] = copy.get(queue)
        dest = kjarni.Array.empty(queue.device, shape, dtype)
        comm.all_reduce(src, dest=dest, op=ops[0])
        out["dest"] = dest.get(queue)
        out["gathered"] = comm.all_gather(src_blocks).get()
        out["gathered0"] = comm.all_gather(src_blocks, nd_up=0).get()
        broadcast = src.copy(queue)
        comm.broadcast(broadcast, count - 1)
        out["broadcast"] = broadcast.get(queue)
        out["all_to_all"] = comm.all_to_all(src_blocks).get()
        received = kjarni.Array.empty(queue.device, shape, dtype)
        nxt, prev = (rank + 1) % count, (rank + count - 1) % count
        if rank == 0:  # a ring ordered so that blocking sends cannot deadlock
            comm.send(src, nxt)
            comm.recv(received, prev)
        else:
            comm.recv(received, prev)
            comm.send(src, nxt)
        out["received"] = received.get(queue)
        # The same communicator on another queue of its device.
        other = kjarni.Queue(queue.device)
        out["on_other"] = comm.on(other).all_reduce(src, op="max").get(other)
        comm.wait(TIMEOUT)
        return out

    results = run_ranks(count, rank_body)
    what = f"{numpy.dtype(dtype).name} per rank"
    block = even[0] // count
    for rank, out in enumerate(results):
        for op in ops:
            check_reduced(out["all_reduce", op], values, op, f"{what} all_reduce {op}")
            if rank == 1:
                check_reduced(out["reduce", op], values, op, f"{what} reduce {op}")
            check_reduced(out["reduce_scatter", op], [b[rank * block:(rank + 1) * block] for b in blocks], op,
                          f"{what} reduce_scatter {op}")
        check_reduced(out["in_place"], values, ops[0], what + " in place")
        check_reduced(out["dest"], values, ops[0], what + " into dest")
        numpy.testing.assert_array_equal(out["gathered"], numpy.stack(blocks))
        numpy.testing.assert_array_equal(out["gathered0"], numpy.concatenate(blocks))
        numpy.testing.assert_array_equal(out["broadcast"], values[count - 1])
        numpy.testing.assert_array_equal(out["all_to_all"],
                                         numpy.concatenate([b[rank * block:(rank + 1) * block] for b in blocks]))
        numpy.testing.assert_array_equal(out["received"], values[(rank + count - 1) % count])
        check_reduced(out["on_other"], values, "max", what + " on another queue")


def test_pygpu_vocabulary(multi_context, rng):
    """pygpu's GpuCommCliqueId / GpuComm: op before dest, root -1 is the caller, numpy sources."""
    devices = multi_context.devices
    values = [random_values(rng, numpy.float32, (40, 3)) for _ in range(2)]
    first = collectives.GpuCommCliqueId(kjarni.Queue(devices[0]))
    comm_id = first.comm_id

    def rank_body(rank):
        queue = kjarni.Queue(devices[rank])
        cid = collectives.GpuCommCliqueId(queue, comm_id=comm_id)
        assert cid == first
        comm = collectives.GpuComm(cid, 2, rank, timeout=TIMEOUT)
        assert (comm.count, comm.rank) == (2, rank)
        out = {"sum": comm.all_reduce(values[rank], "+").get(), "prod": comm.all_reduce(values[rank], "*").get()}
        reduced = comm.reduce(values[rank], "max", root=0) if rank else comm.reduce(values[rank], "max")
        out["reduce"] = None if reduced is None else reduced.get()
        out["gather"] = comm.all_gather(values[rank]).get()
        out["scatter"] = comm.reduce_scatter(values[rank][:40], "min").get()
        array = kjarni.Array.from_host(queue, values[rank])
        if rank == 0:
            comm.broadcast(array)
        else:
            comm.broadcast(array, root=0)
        out["broadcast"] = array.get(queue)
        return out

    results = run_ranks(2, rank_body)
    for rank, out in enumerate(results):
        check_reduced(out["sum"], values, "sum", "pygpu all_reduce +")
        check_reduced(out["prod"], values, "prod", "pygpu all_reduce *")
        assert (out["reduce"] is None) == (rank == 1)
        if rank == 0:
            check_reduced(out["reduce"], values, "max", "pygpu reduce")
        numpy.testing.assert_array_equal(out["gather"], numpy.stack(values))
        check_reduced(out["scatter"], [v[rank * 20:(rank + 1) * 20] for v in values], "min", "pygpu reduce_scatter")
        numpy.testing.assert_array_equal(out["broadcast"], values[0])


def test_rendezvous_and_communicator_from_it(multi_context, rng):
    devices = multi_context.devices
    group = kjarni.collectives.LocalRendezvous.create_group(2, timeout=TIMEOUT)
    values = [random_values(rng, numpy.int32, 64) for _ in range(2)]
    payloads = [rng.bytes(int(rng.integers(1, 100))) for _ in range(2)]
    big = [rng.bytes(int(rng.integers(1 << 20, 2 << 20))) for _ in range(2)]  # both send at once

    def rank_body(rank):
        rendezvous = group[rank]
        assert (rendezvous.rank, rendezvous.count) == (rank, 2)
        out = {"broadcast": rendezvous.broadcast(payloads[rank], 1), "gathered": rendezvous.all_gather(payloads[rank])}
        rendezvous.barrier()
        peer = 1 - rank
        rendezvous.send(peer, payloads[rank])
        out["received"] = rendezvous.recv(peer, len(payloads[peer]))
        out["exchanged"] = rendezvous.exchange(peer, big[rank], peer, len(big[peer]))
        queue = kjarni.Queue(devices[rank])
        comm = kjarni.Communicator.from_rendezvous(queue, rendezvous, kjarni.CollectiveEngine.fallback, TIMEOUT)
        assert comm.engine == "fallback"
        out["sum"] = comm.all_reduce(kjarni.Array.from_host(queue, values[rank])).get()
        return out

    for rank, out in enumerate(run_ranks(2, rank_body)):
        assert out["broadcast"] == payloads[1]
        assert out["gathered"] == payloads
        assert out["received"] == payloads[1 - rank]
        assert out["exchanged"] == big[1 - rank]
        check_reduced(out["sum"], values, "sum", "from a rendezvous")


class QueueRendezvous:
    """A rendezvous written in Python (as one over mpi4py would be): mailboxes between threads."""

    def __init__(self, boxes, rank, count):
        self.boxes, self.rank, self.count = boxes, rank, count

    def send(self, peer, data):
        self.boxes[self.rank, peer].put(bytes(data))

    def recv(self, peer, size):
        return self.boxes[peer, self.rank].get(timeout=TIMEOUT)  # kjarni checks the size

    def broadcast(self, data, root):
        if self.rank == root:
            for peer in range(self.count):
                if peer != root:
                    self.send(peer, data)
            return data
        return self.boxes[root, self.rank].get(timeout=TIMEOUT)

    def all_gather(self, data):
        for peer in range(self.count):
            if peer != self.rank:
                self.send(peer, data)
        return [bytes(data) if peer == self.rank else self.boxes[peer, self.rank].get(timeout=TIMEOUT)
                for peer in range(self.count)]

    def barrier(self):
        self.all_gather(b"")


def test_python_rendezvous(multi_context, rng):
    import queue as queues
    devices = multi_context.devices
    boxes = {(i, j): queues.Queue() for i in range(2) for j in range(2)}
    values = [random_values(rng, numpy.float32, (2 * 13, 3)) for _ in range(2)]
    ints = [random_values(rng, numpy.int32, 50) for _ in range(2)]

    def rank_body(rank):
        rendezvous = kjarni.collectives.PythonRendezvous(QueueRendezvous(boxes, rank, 2))
        assert (rendezvous.rank, rendezvous.count) == (rank, 2)
        queue = kjarni.Queue(devices[rank])
        comm = kjarni.Communicator.from_rendezvous(queue, rendezvous, kjarni.CollectiveEngine.fallback, TIMEOUT)
        src = kjarni.Array.from_host(queue, values[rank])
        return {"sum": comm.all_reduce(src).get(), "max": comm.all_reduce(kjarni.Array.from_host(queue, ints[rank]),
                                                                          op="max").get(),
                "scatter": comm.reduce_scatter(src, op="prod").get(), "gather": comm.all_gather(src).get()}

    for rank, out in enumerate(run_ranks(2, rank_body)):
        check_reduced(out["sum"], values, "sum", "over a Python rendezvous")
        check_reduced(out["max"], ints, "max", "over a Python rendezvous")
        check_reduced(out["scatter"], [v[rank * 13:(rank + 1) * 13] for v in values], "prod", "over a Python rendezvous")
        numpy.testing.assert_array_equal(out["gather"], numpy.stack(values))


def test_python_rendezvous_errors_are_peer_errors(queue):
    class Broken(QueueRendezvous):
        def recv(self, peer, size):
            raise RuntimeError("the line is down")

    import queue as queues
    boxes = {(i, j): queues.Queue() for i in range(2) for j in range(2)}
    rendezvous = kjarni.collectives.PythonRendezvous(Broken(boxes, 0, 2))
    with pytest.raises(kjarni.PeerError) as info:
        rendezvous.recv(1, 4)
    assert info.value.peer == 1 and "the line is down" in str(info.value)
    short = kjarni.collectives.PythonRendezvous(QueueRendezvous(boxes, 1, 2))
    boxes[0, 1].put(b"abc")
    with pytest.raises(kjarni.PeerError) as info:
        short.exchange(0, b"x", 0, 4)  # no exchange method: send, then recv; 3 bytes for 4
    assert info.value.peer == 0 and "3 bytes, 4 expected" in str(info.value)
    with pytest.raises(kjarni.ArgumentError) as info:
        kjarni.collectives.PythonRendezvous(QueueRendezvous(boxes, 2, 2))
    assert info.value.argument == "rendezvous"


def test_tcp_rendezvous_on_localhost(rng):
    port = random.randrange(20000, 60000)
    payloads = [rng.bytes(10), rng.bytes(20)]

    def rank_body(rank):
        rendezvous = kjarni.collectives.TcpRendezvous.create("127.0.0.1", port, rank, 2, timeout=TIMEOUT)
        return rendezvous.job_nonce, rendezvous.all_gather(payloads[rank])

    (nonce0, gathered0), (nonce1, gathered1) = run_ranks(2, rank_body)
    assert nonce0 == nonce1
    assert gathered0 == gathered1 == payloads


def test_a_silent_peer_is_a_peer_error():
    group = kjarni.collectives.LocalRendezvous.create_group(2, timeout=0.2)
    with pytest.raises(kjarni.PeerError) as info:
        group[0].recv(1, 4)  # rank 1 never sends
    assert info.value.peer == 1
    assert isinstance(info.value, kjarni.Error)


def test_bad_input_names_the_culprit(queue, rng):
    comm, = kjarni.Communicator.create_all(kjarni.MultiQueue([queue]))
    assert comm.count == 1
    x = kjarni.Array.from_host(queue, random_values(rng, numpy.float32, 8))
    # A clique of one is the identity: no kernel needed.
    numpy.testing.assert_array_equal(comm.all_reduce(x).get(), x.get())
    complex_array = kjarni.Array.from_host(queue, numpy.zeros(4, numpy.complex64))
    with pytest.raises(kjarni.ArgumentError) as info:
        comm.all_reduce(complex_array)
    assert info.value.argument == "src" and "complex64" in str(info.value)
    ints = kjarni.Array.from_host(queue, numpy.zeros(8, numpy.int32))
    with pytest.raises(kjarni.ArgumentError):
        comm.all_reduce(x, ints)
    with pytest.raises(kjarni.ArgumentError) as info:
        comm.all_reduce(x, op="mean")
    assert info.value.argument == "op"
    with pytest.raises(kjarni.ArgumentError) as info:
        comm.all_reduce(x, op=3)
    assert info.value.argument == "op"
    with pytest.raises(kjarni.ArgumentError):
        comm.broadcast(x, 1)  # no rank 1
    with pytest.raises(kjarni.ArgumentError) as info:
        comm.wait(-1.0)
    assert info.value.argument == "timeout"
    with pytest.raises(kjarni.ArgumentError):
        kjarni.CliqueId.from_bytes(b"too short")
    with pytest.raises(kjarni.ArgumentError) as info:
        collectives.all_reduce([], None)
    assert info.value.argument == "comms"
    with pytest.raises(TypeError):
        comm.all_reduce(numpy.zeros(4, numpy.float32))  # the kjarni Communicator takes Arrays only
    comm.abort()
    assert comm.aborted
    with pytest.raises(kjarni.PeerError):
        comm.all_reduce(x)
