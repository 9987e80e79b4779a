"""Collectives between devices: kjarni's ``Communicator`` and pygpu's ``gpuarray.collectives``
vocabulary (``GpuCommCliqueId``, ``GpuComm``) over it.

Per rank (each rank a thread of this process, or a process of its own)::

    cid = kjarni.CliqueId.create(queue0)                    # one rank makes it; others get cid.bytes()
    comm = kjarni.Communicator(queue, cid, count, rank)      # every rank, collectively
    total = comm.all_reduce(x, op="sum")                     # a new Array on every rank

Over every part of a MultiArray, all ranks driven by one thread::

    comms = kjarni.Communicator.create_all(mqueue)
    total = kjarni.collectives.all_reduce(comms, multi_array)

On CUDA with NCCL (libnccl.so.2) the work is NCCL's; elsewhere (OpenCL, CUDA without NCCL) kjarni's
fallback engine does it with device copies and its own kernels. Operations are ``ReduceOp`` values
or their names: ``"sum"`` (pygpu's ``"+"``), ``"prod"`` (``"*"``), ``"max"``, ``"min"``, ``"avg"``.
Arrays must be C-contiguous, of int8, uint8, int32, uint32, int64, uint64, float16, float32 or
float64 (``ArgumentError`` naming the argument otherwise). Integer sums and products wrap around;
``avg`` of integers truncates toward zero (NCCL's rules). A rank that fails or stops calling gives
``PeerError`` on the others within the communicator's timeout (seconds; 600 by default).

Calls that wait for other ranks release the GIL, so the ranks of one process may be Python threads.
New results remember the communicator's queue (``array.queue``), so ``result.get()`` needs none.
"""

import numpy

from . import _kjarni
from .errors import ArgumentError

ReduceOp = _kjarni.ReduceOp
CollectiveEngine = _kjarni.CollectiveEngine
CliqueId = _kjarni.CliqueId
Communicator = _kjarni.Communicator
Rendezvous = _kjarni.Rendezvous
LocalRendezvous = _kjarni.LocalRendezvous
TcpRendezvous = _kjarni.TcpRendezvous
PythonRendezvous = _kjarni.PythonRendezvous
rendezvous_from_environment = _kjarni.rendezvous_from_environment


def _comm_list(comms):
    comms = list(comms)
    if not comms or not all(isinstance(c, Communicator) for c in comms):
        raise ArgumentError("must be a non-empty sequence of Communicators (Communicator.create_all's)", "comms")
    return comms


# ---- Over every part of a MultiArray ------------------------------------------------------------
# `comms` are Communicator.create_all's (any order); each part goes with the communicator of its
# device. With NCCL the per-part calls are one group.

def all_reduce(comms, src, dest=None, op=ReduceOp.sum):
    """Every part of ``src`` combined by ``op`` into every part of ``dest`` (split like src; may be
    src), or a new MultiArray of src's splay."""
    return _kjarni._multi_all_reduce(_comm_list(comms), src, dest, op)


def reduce(comms, src, dest, op=ReduceOp.sum, root=0):
    """Every part of ``src`` combined by ``op`` into the part of ``dest`` on rank ``root``'s device."""
    _kjarni._multi_reduce(_comm_list(comms), src, dest, op, root)
    return dest


def broadcast(comms, array, root=0):
    """The part on rank ``root``'s device copied into every other part (in place)."""
    _kjarni._multi_broadcast(_comm_list(comms), array, root)
    return array


def all_gather(comms, src, dest=None):
    """The parts of ``src`` (equal shapes, e.g. EqualSplay) joined in rank order along axis 0 on
    every part of ``dest`` (each of the whole shape), or a new CloneSplay MultiArray."""
    return _kjarni._multi_all_gather(_comm_list(comms), src, dest)


def reduce_scatter(comms, src, dest=None, op=ReduceOp.sum):
    """The parts of ``src`` (each of the whole shape) combined by ``op``, block i of axis 0 landing
    on rank i's part of ``dest``, or a new EqualSplay MultiArray of src's shape."""
    return _kjarni._multi_reduce_scatter(_comm_list(comms), src, dest, op)


def all_to_all(comms, src, dest):
    """Every part's block j (axis 0 cut in count blocks) to rank j's part of ``dest``, in rank order."""
    _kjarni._multi_all_to_all(_comm_list(comms), src, dest)
    return dest


# ---- pygpu's vocabulary ---------------------------------------------------------------------------

class GpuCommCliqueId:
    """pygpu's clique id: made on one rank (``GpuCommCliqueId(queue)``), its ``comm_id`` bytes sent
    to the others, who make theirs with ``GpuCommCliqueId(their_queue, comm_id=...)``. pygpu takes a
    context; kjarni takes the queue the rank's collectives go to."""

    def __init__(self, queue, comm_id=None, engine=CollectiveEngine.automatic):
        if not isinstance(queue, _kjarni.Queue):
            raise ArgumentError("must be a kjarni.Queue (the rank's queue)", "queue")
        self.queue = queue
        self._id = CliqueId.create(queue, engine) if comm_id is None else CliqueId.from_bytes(bytes(comm_id))

    @property
    def comm_id(self):
        return self._id.bytes()

    @property
    def clique_id(self):
        return self._id

    def __eq__(self, other):
        return isinstance(other, GpuCommCliqueId) and self._id == other._id

    def __hash__(self):
        return hash(self._id)


def _device_array(comm, value, name):
    """An Array as is; a numpy array (or anything numpy takes) copied to the communicator's device.
    Returns (array, whether it is a temporary made here)."""
    if isinstance(value, _kjarni.Array) or value is None:
        return value, False
    if isinstance(value, (numpy.ndarray, numpy.generic, list, tuple)):
        return _kjarni.Array.from_host(comm.queue, numpy.asarray(value)), True
    raise ArgumentError(f"must be a kjarni.Array or a numpy array, not {type(value).__name__}", name)


class GpuComm:
    """pygpu's communicator: rank ``rank`` of ``ndev`` in the clique of ``cid``, on ``cid.queue``.
    Methods take pygpu's argument order (``op`` before ``dest``; ``root=-1`` is the calling rank);
    sources may be numpy arrays (copied to the device first, and then the call waits for the
    collective: see ``_call``). ``comm`` is the kjarni Communicator."""

    def __init__(self, cid, ndev, rank, timeout=None):
        if not isinstance(cid, GpuCommCliqueId):
            raise ArgumentError("must be a GpuCommCliqueId", "cid")
        self.comm = Communicator(cid.queue, cid.clique_id, ndev, rank, timeout)

    @property
    def count(self):
        return self.comm.count

    @property
    def rank(self):
        return self.comm.rank

    @property
    def queue(self):
        return self.comm.queue

    def _call(self, method, src, *args):
        """``method(src, *args)`` with a numpy ``src`` copied to the device first. Such a copy is a
        temporary: the call then waits for the collective (interpreter lock released) before the
        copy is dropped, because freeing device memory waits for the device while holding the
        interpreter lock, and the collective may be waiting for a rank on another thread of this
        process that needs the lock to make its own call."""
        array, temporary = _device_array(self, src, "src")
        result = method(array, *args)
        if temporary:
            self.comm.wait()
        return result

    def all_reduce(self, src, op, dest=None):
        return self._call(self.comm.all_reduce, src, dest, op)

    def reduce(self, src, op, dest=None, root=-1):
        """The result on the root (``root=-1``: this rank), None on the other ranks."""
        return self._call(self.comm.reduce, src, dest, op, root)

    def all_gather(self, src, dest=None, nd_up=1):
        return self._call(self.comm.all_gather, src, dest, nd_up)

    def reduce_scatter(self, src, op, dest=None):
        return self._call(self.comm.reduce_scatter, src, dest, op)

    def broadcast(self, array, root=-1):
        """In place: ``array`` must be a kjarni.Array (the root's is sent, the others' overwritten)."""
        if not isinstance(array, _kjarni.Array):
            raise ArgumentError("must be a kjarni.Array (broadcast works in place)", "array")
        self.comm.broadcast(array, root)
        return array


__all__ = [
    "ReduceOp", "CollectiveEngine", "CliqueId", "Communicator", "Rendezvous", "LocalRendezvous", "TcpRendezvous",
    "PythonRendezvous", "rendezvous_from_environment", "all_reduce", "reduce", "broadcast", "all_gather",
    "reduce_scatter", "all_to_all", "GpuCommCliqueId", "GpuComm",
]
