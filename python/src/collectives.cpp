// Collectives (pygpu's gpuarray.collectives: GpuCommCliqueId, GpuComm) and the rendezvous that
// bootstraps them (kjarni/collectives.hpp, kjarni/rendezvous.hpp). kjarni/collectives.py adds
// pygpu's names and argument order over these.
//
// Every call that may wait for another rank releases the GIL: ranks of one process are Python
// threads, and a rank holding the GIL while it waits for the others would deadlock them.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <kjarni/collectives.hpp>
#include <kjarni/error.hpp>
#include <kjarni/rendezvous.hpp>

#include "bindings.hpp"
#include "value_conversion.hpp"

namespace kjarni::python {

namespace {

using std::chrono::milliseconds;

// A timeout in seconds (a float, as Python's own APIs take them), None for the default.
milliseconds to_timeout(const std::optional<double>& seconds, milliseconds fallback) {
    if (!seconds) return fallback;
    if (!(*seconds >= 0) || !std::isfinite(*seconds)) {
        throw ArgumentError("timeout", "must be a finite number of seconds >= 0, not " + std::to_string(*seconds));
    }
    const double ms = *seconds * 1000.0;
    if (ms >= static_cast<double>(milliseconds::max().count())) return milliseconds::max();
    return milliseconds(static_cast<milliseconds::rep>(std::llround(ms)));
}

// An operation as a ReduceOp or by name: pygpu's ('+', '*', 'max', 'min') or kjarni's
// ('sum', 'prod', 'max', 'min', 'avg').
ReduceOp to_reduce_op(nb::handle op) {
    // Not converting: a plain integer is no operation (nanobind would take it as the enum's value).
    if (ReduceOp value{}; nb::try_cast<ReduceOp>(op, value, false)) return value;
    if (PyUnicode_Check(op.ptr())) {
        const std::string name = text_of(op);
        if (name == "sum" || name == "+") return ReduceOp::sum;
        if (name == "prod" || name == "*") return ReduceOp::prod;
        if (name == "max") return ReduceOp::max;
        if (name == "min") return ReduceOp::min;
        if (name == "avg") return ReduceOp::avg;
        throw ArgumentError("op", "unknown reduction '" + name + "': use sum (+), prod (*), max, min or avg");
    }
    throw ArgumentError("op", "must be a ReduceOp or its name, not " + text_of(op.type().attr("__name__")));
}

// `root` as pygpu takes it: -1 is the calling rank.
int to_root(const Communicator& comm, int root) { return root == -1 ? comm.rank() : root; }

// A new result remembers the queue it was computed on (`array.queue`), as every new Array of the
// package does, so that get() needs no queue.
nb::object remembered(Array array, const Queue& queue) {
    nb::object out = nb::cast(std::move(array));
    out.attr("queue") = nb::cast(queue);
    return out;
}

nb::object remembered(MultiArray array, const std::vector<Communicator>& comms) {
    std::vector<Queue> queues;
    for (const Communicator& comm : comms) queues.push_back(comm.queue());
    nb::object out = nb::cast(std::move(array));
    out.attr("queue") = nb::cast(MultiQueue(std::move(queues)));
    return out;
}

std::span<const std::byte> bytes_of(const nb::bytes& data) {
    return {static_cast<const std::byte*>(data.data()), data.size()};
}

nb::bytes to_bytes(std::span<const std::byte> data) {
    return nb::bytes(reinterpret_cast<const char*>(data.data()), data.size());
}

// A Rendezvous whose operations are a Python object's methods (over mpi4py, a job scheduler's
// key-value store, queues between threads...). kjarni calls it with the GIL released (from inside a
// collective), so every call takes the GIL first. A Python exception becomes a PeerError carrying
// its message, made while the GIL is held: the exception object must not cross kjarni's code
// without it.
class PythonRendezvous final : public Rendezvous {
public:
    explicit PythonRendezvous(nb::object impl) : impl_(std::move(impl)) {
        rank_ = nb::cast<int>(attribute("rank"));
        count_ = nb::cast<int>(attribute("count"));
        if (count_ < 1 || rank_ < 0 || rank_ >= count_) {
            throw ArgumentError("rendezvous", "rank " + std::to_string(rank_) + " of " + std::to_string(count_) +
                                                  " is not a rank of a job");
        }
    }
    ~PythonRendezvous() override {
        nb::gil_scoped_acquire gil;
        impl_.reset();
    }
    PythonRendezvous(const PythonRendezvous&) = delete;
    PythonRendezvous& operator=(const PythonRendezvous&) = delete;

    int rank() const noexcept override { return rank_; }
    int count() const noexcept override { return count_; }
    const nb::object& object() const noexcept { return impl_; }

    std::vector<std::byte> broadcast(std::span<const std::byte> data, int root) override {
        return call(root, [&] { return bytes_result(impl_.attr("broadcast")(to_bytes(data), root), "broadcast"); });
    }
    std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) override {
        return call(-1, [&] {
            std::vector<std::vector<std::byte>> out;
            for (nb::handle item : impl_.attr("all_gather")(to_bytes(data)))
                out.push_back(bytes_result(item, "all_gather"));
            if (out.size() != static_cast<std::size_t>(count_)) {
                throw PeerError(-1, "the Python rendezvous' all_gather gave " + std::to_string(out.size()) +
                                        " messages for " + std::to_string(count_) + " ranks");
            }
            return out;
        });
    }
    void barrier() override {
        call(-1, [&] {
            impl_.attr("barrier")();
            return 0;
        });
    }
    void send(int peer, std::span<const std::byte> data) override {
        call(peer, [&] {
            impl_.attr("send")(peer, to_bytes(data));
            return 0;
        });
    }
    void recv(int peer, std::span<std::byte> data) override {
        call(peer, [&] {
            fill(data, impl_.attr("recv")(peer, data.size()), peer, "recv");
            return 0;
        });
    }
    /// The object's `exchange` when it has one; else its send, then its recv (enough where send does
    /// not block, as with queues or MPI's buffered sends of small messages).
    void exchange(int send_peer, std::span<const std::byte> send_data, int recv_peer,
                  std::span<std::byte> recv_data) override {
        call(recv_peer, [&] {
            if (nb::hasattr(impl_, "exchange")) {
                fill(recv_data, impl_.attr("exchange")(send_peer, to_bytes(send_data), recv_peer, recv_data.size()),
                     recv_peer, "exchange");
            } else {
                impl_.attr("send")(send_peer, to_bytes(send_data));
                fill(recv_data, impl_.attr("recv")(recv_peer, recv_data.size()), recv_peer, "recv");
            }
            return 0;
        });
    }

private:
    nb::object attribute(const char* name) const {
        nb::object value = impl_.attr(name);
        return PyCallable_Check(value.ptr()) ? value() : value;
    }

    template <class F>
    auto call(int peer, F f) -> decltype(f()) {
        nb::gil_scoped_acquire gil;
        try {
            return f();
        } catch (nb::python_error& error) {
            throw PeerError(peer, std::string("the Python rendezvous raised ") + error.what());
        } catch (nb::cast_error&) {
            throw PeerError(peer, "the Python rendezvous returned a value of the wrong type");
        }
    }

    static std::vector<std::byte> bytes_result(nb::handle value, const char* what) {
        nb::bytes data;
        if (!nb::try_cast(value, data)) {
            data = nb::bytes(nb::steal(PyBytes_FromObject(value.ptr())));  // bytearray, memoryview, numpy...
            if (!data.is_valid()) {
                PyErr_Clear();
                throw PeerError(-1, std::string("the Python rendezvous' ") + what + " gave no bytes");
            }
        }
        const auto* begin = static_cast<const std::byte*>(data.data());
        return {begin, begin + data.size()};
    }

    static void fill(std::span<std::byte> out, nb::handle value, int peer, const char* what) {
        const std::vector<std::byte> data = bytes_result(value, what);
        if (data.size() != out.size()) {
            throw PeerError(peer, std::string("the Python rendezvous' ") + what + " gave " +
                                      std::to_string(data.size()) + " bytes, " + std::to_string(out.size()) +
                                      " expected");
        }
        std::copy(data.begin(), data.end(), out.begin());
    }

    nb::object impl_;
    int rank_ = 0;
    int count_ = 0;
};

}  // namespace

void bind_collectives(nb::module_& m) {
    nb::enum_<ReduceOp>(m, "ReduceOp", "How a reduction combines the ranks' values (NCCL's ops).")
        .value("sum", ReduceOp::sum)
        .value("prod", ReduceOp::prod)
        .value("max", ReduceOp::max)
        .value("min", ReduceOp::min)
        .value("avg", ReduceOp::avg);
    nb::enum_<CollectiveEngine>(m, "CollectiveEngine",
                                "Which engine runs the collectives: NCCL (CUDA, libnccl.so.2), kjarni's fallback "
                                "(copies and kernels, any device), or NCCL where it can.")
        .value("automatic", CollectiveEngine::automatic)
        .value("nccl", CollectiveEngine::nccl)
        .value("fallback", CollectiveEngine::fallback);

    nb::class_<CliqueId>(m, "CliqueId",
                         "The identity of one clique: made by one rank (create), handed to the others as its bytes "
                         "(from_bytes).")
        .def_static("create", &CliqueId::create, nb::arg("queue"), nb::arg("engine") = CollectiveEngine::automatic,
                    "A new clique for the queue's kind of device (NCCL's id on CUDA with NCCL, else the fallback's).")
        .def_static(
            "from_bytes", [](const nb::bytes& data) { return CliqueId::from_bytes(bytes_of(data)); }, nb::arg("data"),
            "From another rank's bytes; ArgumentError unless exactly CliqueId.size of them.")
        .def_ro_static("size", &CliqueId::size)
        .def("bytes", [](const CliqueId& id) { return to_bytes(id.bytes()); })
        .def_prop_ro("engine", &CliqueId::engine)
        .def("__eq__", [](const CliqueId& a, const CliqueId& b) { return a == b; })
        .def("__hash__", [](const CliqueId& id) { return nb::hash(to_bytes(id.bytes())); });

    nb::class_<Rendezvous>(m, "Rendezvous",
                           "How the ranks of a job find each other and exchange bytes (every wait bounded by a "
                           "timeout: PeerError naming the peer, never a hang).")
        .def_prop_ro("rank", &Rendezvous::rank)
        .def_prop_ro("count", &Rendezvous::count)
        .def(
            "broadcast",
            [](Rendezvous& r, const nb::bytes& data, int root) {
                std::vector<std::byte> out;
                {
                    nb::gil_scoped_release release;
                    out = r.broadcast(bytes_of(data), root);
                }
                return to_bytes(out);
            },
            nb::arg("data"), nb::arg("root"), "Collective: the root's bytes, on every rank.")
        .def(
            "all_gather",
            [](Rendezvous& r, const nb::bytes& data) {
                std::vector<std::vector<std::byte>> out;
                {
                    nb::gil_scoped_release release;
                    out = r.all_gather(bytes_of(data));
                }
                nb::list result;
                for (const auto& item : out) result.append(to_bytes(item));
                return result;
            },
            nb::arg("data"), "Collective: every rank's bytes, in rank order.")
        .def("barrier", &Rendezvous::barrier, nb::call_guard<nb::gil_scoped_release>())
        .def(
            "send",
            [](Rendezvous& r, int peer, const nb::bytes& data) {
                nb::gil_scoped_release release;
                r.send(peer, bytes_of(data));
            },
            nb::arg("peer"), nb::arg("data"))
        .def(
            "recv",
            [](Rendezvous& r, int peer, std::size_t size) {
                std::vector<std::byte> out(size);
                {
                    nb::gil_scoped_release release;
                    r.recv(peer, out);
                }
                return to_bytes(out);
            },
            nb::arg("peer"), nb::arg("size"), "Exactly `size` bytes that `peer` sent.")
        .def(
            "exchange",
            [](Rendezvous& r, int send_peer, const nb::bytes& data, int recv_peer, std::size_t size) {
                std::vector<std::byte> out(size);
                {
                    nb::gil_scoped_release release;
                    r.exchange(send_peer, bytes_of(data), recv_peer, out);
                }
                return to_bytes(out);
            },
            nb::arg("send_peer"), nb::arg("data"), nb::arg("recv_peer"), nb::arg("size"),
            "Sends `data` to one peer while receiving `size` bytes from another (or the same): no deadlock "
            "when both sides send large messages at once.");

    nb::class_<LocalRendezvous, Rendezvous>(m, "LocalRendezvous", "The ranks of a job as threads of one process.")
        .def_static(
            "create_group",
            [](int count, std::optional<double> timeout) {
                auto group = LocalRendezvous::create_group(count, to_timeout(timeout, TcpRendezvous::default_timeout));
                nb::list out;
                for (auto& rank : group) out.append(nb::cast(std::move(rank)));
                return out;
            },
            nb::arg("count"), nb::arg("timeout") = nb::none(),
            "The `count` ranks at once, one object per thread (timeout in seconds; default 60).");

    nb::class_<PythonRendezvous, Rendezvous>(
        m, "PythonRendezvous",
        "A Rendezvous over a Python object (mpi4py's communicator behind a few methods, or anything else) with "
        "`rank` and `count`, and the methods broadcast(data, root) -> bytes, all_gather(data) -> [bytes], "
        "barrier(), send(peer, data), recv(peer, size) -> bytes and, optionally, exchange(send_peer, data, "
        "recv_peer, size) -> bytes. Its exceptions reach kjarni as PeerError with their message.")
        .def(nb::init<nb::object>(), nb::arg("implementation"))
        .def_prop_ro("implementation", &PythonRendezvous::object);

    nb::class_<TcpRendezvous, Rendezvous>(m, "TcpRendezvous", "The ranks of a job as processes, over TCP.")
        .def_static(
            "create",
            [](const std::string& address, std::uint16_t port, int rank, int count, std::optional<double> timeout) {
                const milliseconds t = to_timeout(timeout, TcpRendezvous::default_timeout);
                nb::gil_scoped_release release;
                return TcpRendezvous::create(address, port, rank, count, t);
            },
            nb::arg("address"), nb::arg("port"), nb::arg("rank"), nb::arg("count"), nb::arg("timeout") = nb::none(),
            "Joins the job as `rank` of `count` (rank 0 listens at `port`); returns once every rank has joined.")
        .def_prop_ro("timeout",
                     [](const TcpRendezvous& r) { return static_cast<double>(r.timeout().count()) / 1000.0; })
        .def_prop_ro("job_nonce", &TcpRendezvous::job_nonce);

    m.def(
        "rendezvous_from_environment",
        [](std::optional<double> timeout) {
            const milliseconds t = to_timeout(timeout, TcpRendezvous::default_timeout);
            nb::gil_scoped_release release;
            return rendezvous_from_environment(t);
        },
        nb::arg("timeout") = nb::none(),
        "A TcpRendezvous from KJARNI_RANK / RANK / OMPI_COMM_WORLD_RANK..., KJARNI_WORLD_SIZE / WORLD_SIZE..., "
        "KJARNI_MASTER_ADDR / MASTER_ADDR and KJARNI_MASTER_PORT / MASTER_PORT, as torch.distributed's env://.");

    nb::class_<Communicator>(
        m, "Communicator",
        "One rank of a clique of devices that reduce, broadcast, gather and scatter Arrays together (NCCL on CUDA "
        "where available, kjarni's fallback engine elsewhere). Calls wait for the other ranks: ranks of one process "
        "are threads (the GIL is released while a call waits). With ranks as threads, keep the arrays of a "
        "collective alive until it is done (`wait()`, or `get()` of its result): on CUDA, freeing device memory "
        "waits for the device while holding the GIL, and the device may be waiting for a rank that needs the GIL.")
        .def(
            "__init__",
            [](Communicator* self, const Queue& queue, const CliqueId& id, int count, int rank,
               std::optional<double> timeout) {
                const milliseconds t = to_timeout(timeout, Communicator::default_timeout);
                nb::gil_scoped_release release;
                new (self) Communicator(queue, id, count, rank, t);
            },
            nb::arg("queue"), nb::arg("clique_id"), nb::arg("count"), nb::arg("rank"), nb::arg("timeout") = nb::none(),
            "Collective: every rank of the clique calls it with its own rank (timeout in seconds; default 600).")
        .def_static(
            "from_rendezvous",
            [](const Queue& queue, Rendezvous& rendezvous, CollectiveEngine engine, std::optional<double> timeout) {
                const milliseconds t = to_timeout(timeout, Communicator::default_timeout);
                nb::gil_scoped_release release;
                return Communicator::from_rendezvous(queue, rendezvous, engine, t);
            },
            nb::arg("queue"), nb::arg("rendezvous"), nb::arg("engine") = CollectiveEngine::automatic,
            nb::arg("timeout") = nb::none(), nb::keep_alive<0, 2>(),
            "Collective over the ranks of `rendezvous` (kept alive by the communicator: the fallback engine moves "
            "its bytes through it).")
        .def_static(
            "create_all",
            [](const MultiQueue& queues, CollectiveEngine engine, std::optional<double> timeout) {
                const milliseconds t = to_timeout(timeout, Communicator::default_timeout);
                nb::gil_scoped_release release;
                return Communicator::create_all(queues, engine, t);
            },
            nb::arg("queues"), nb::arg("engine") = CollectiveEngine::automatic, nb::arg("timeout") = nb::none(),
            "One communicator per queue of `queues` (rank i on the i-th device), made by this thread.")
        .def_prop_ro("rank", &Communicator::rank)
        .def_prop_ro("count", &Communicator::count)
        .def_prop_ro("engine", &Communicator::engine, "'NCCL' or 'fallback'.")
        .def_prop_ro("queue", &Communicator::queue)
        .def("on", &Communicator::on, nb::arg("queue"), "The same communicator, its calls enqueued on `queue`.")
        .def(
            "wait",
            [](const Communicator& c, std::optional<double> timeout) {
                const milliseconds t = to_timeout(timeout, Communicator::default_timeout);
                nb::gil_scoped_release release;
                c.wait(t);
            },
            nb::arg("timeout") = nb::none(),
            "Returns when the communicator's queue is done; PeerError (the communicator aborted) when a rank fails "
            "or the timeout passes first.")
        .def("abort", &Communicator::abort)
        .def_prop_ro("aborted", &Communicator::aborted)
        .def(
            "all_reduce",
            [](const Communicator& c, const Array& src, std::optional<Array> dest, nb::handle op) -> nb::object {
                const ReduceOp o = to_reduce_op(op);
                if (dest) {
                    {
                        nb::gil_scoped_release release;
                        c.all_reduce(src, *dest, o);
                    }
                    return nb::cast(*dest);
                }
                std::optional<Array> out;
                {
                    nb::gil_scoped_release release;
                    out = c.all_reduce(src, o);
                }
                return remembered(std::move(*out), c.queue());
            },
            nb::arg("src"), nb::arg("dest") = nb::none(), nb::arg("op") = ReduceOp::sum,
            "Every rank's `src` combined by `op`, on every rank: into `dest` (may be `src`), else a new Array.")
        .def(
            "reduce",
            [](const Communicator& c, const Array& src, std::optional<Array> dest, nb::handle op,
               int root) -> nb::object {
                const ReduceOp o = to_reduce_op(op);
                root = to_root(c, root);
                if (dest) {
                    {
                        nb::gil_scoped_release release;
                        c.reduce(src, *dest, o, root);
                    }
                    return c.rank() == root ? nb::cast(*dest) : nb::none();
                }
                std::optional<Array> out;
                {
                    nb::gil_scoped_release release;
                    out = c.reduce(src, o, root);
                }
                return out ? remembered(std::move(*out), c.queue()) : nb::none();
            },
            nb::arg("src"), nb::arg("dest") = nb::none(), nb::arg("op") = ReduceOp::sum, nb::arg("root") = -1,
            "Every rank's `src` combined by `op` on rank `root` (-1: the calling rank): the result there, None "
            "on the other ranks.")
        .def(
            "broadcast",
            [](const Communicator& c, const Array& array, int root) {
                root = to_root(c, root);
                nb::gil_scoped_release release;
                c.broadcast(array, root);
            },
            nb::arg("array"), nb::arg("root") = -1,
            "The root's `array` into every other rank's (in place; root -1: the calling rank).")
        .def(
            "all_gather",
            [](const Communicator& c, const Array& src, std::optional<Array> dest, int nd_up) -> nb::object {
                if (dest) {
                    {
                        nb::gil_scoped_release release;
                        c.all_gather(src, *dest);
                    }
                    return nb::cast(*dest);
                }
                std::optional<Array> out;
                {
                    nb::gil_scoped_release release;
                    out = c.all_gather(src, nd_up);
                }
                return remembered(std::move(*out), c.queue());
            },
            nb::arg("src"), nb::arg("dest") = nb::none(), nb::arg("nd_up") = 1,
            "Every rank's `src` in rank order: stacked on a new outer axis (nd_up=1) or joined along axis 0 "
            "(nd_up=0).")
        .def(
            "reduce_scatter",
            [](const Communicator& c, const Array& src, std::optional<Array> dest, nb::handle op) -> nb::object {
                const ReduceOp o = to_reduce_op(op);
                if (dest) {
                    {
                        nb::gil_scoped_release release;
                        c.reduce_scatter(src, *dest, o);
                    }
                    return nb::cast(*dest);
                }
                std::optional<Array> out;
                {
                    nb::gil_scoped_release release;
                    out = c.reduce_scatter(src, o);
                }
                return remembered(std::move(*out), c.queue());
            },
            nb::arg("src"), nb::arg("dest") = nb::none(), nb::arg("op") = ReduceOp::sum,
            "`src` cut in count blocks along axis 0; block i of every rank combined by `op` lands on rank i.")
        .def(
            "all_to_all",
            [](const Communicator& c, const Array& src, std::optional<Array> dest) -> nb::object {
                if (dest) {
                    {
                        nb::gil_scoped_release release;
                        c.all_to_all(src, *dest);
                    }
                    return nb::cast(*dest);
                }
                std::optional<Array> out;
                {
                    nb::gil_scoped_release release;
                    out = c.all_to_all(src);
                }
                return remembered(std::move(*out), c.queue());
            },
            nb::arg("src"), nb::arg("dest") = nb::none(),
            "`src` cut in count blocks along axis 0: block j to rank j, which receives every rank's in rank order.")
        .def("send", &Communicator::send, nb::arg("src"), nb::arg("peer"), nb::call_guard<nb::gil_scoped_release>())
        .def("recv", &Communicator::recv, nb::arg("dest"), nb::arg("peer"), nb::call_guard<nb::gil_scoped_release>())
        .def("__repr__", [](const Communicator& c) {
            return "<kjarni.Communicator rank " + std::to_string(c.rank()) + " of " + std::to_string(c.count()) + " (" +
                   c.engine() + ")>";
        });

    // Over every part of a MultiArray, all ranks driven by this thread (one call, no Python threads).
    m.def(
        "_multi_all_reduce",
        [](const std::vector<Communicator>& comms, const MultiArray& src, std::optional<MultiArray> dest,
           nb::handle op) -> nb::object {
            const ReduceOp o = to_reduce_op(op);
            if (dest) {
                {
                    nb::gil_scoped_release release;
                    all_reduce(comms, src, *dest, o);
                }
                return nb::cast(*dest);
            }
            std::optional<MultiArray> out;
            {
                nb::gil_scoped_release release;
                out = all_reduce(comms, src, o);
            }
            return remembered(std::move(*out), comms);
        },
        nb::arg("comms"), nb::arg("src"), nb::arg("dest").none(), nb::arg("op"));
    m.def(
        "_multi_reduce",
        [](const std::vector<Communicator>& comms, const MultiArray& src, const MultiArray& dest, nb::handle op,
           int root) {
            const ReduceOp o = to_reduce_op(op);
            nb::gil_scoped_release release;
            reduce(comms, src, dest, o, root);
        },
        nb::arg("comms"), nb::arg("src"), nb::arg("dest"), nb::arg("op"), nb::arg("root"));
    m.def(
        "_multi_broadcast",
        [](const std::vector<Communicator>& comms, const MultiArray& array, int root) {
            nb::gil_scoped_release release;
            broadcast(comms, array, root);
        },
        nb::arg("comms"), nb::arg("array"), nb::arg("root"));
    m.def(
        "_multi_all_gather",
        [](const std::vector<Communicator>& comms, const MultiArray& src,
           std::optional<MultiArray> dest) -> nb::object {
            if (dest) {
                {
                    nb::gil_scoped_release release;
                    all_gather(comms, src, *dest);
                }
                return nb::cast(*dest);
            }
            std::optional<MultiArray> out;
            {
                nb::gil_scoped_release release;
                out = all_gather(comms, src);
            }
            return remembered(std::move(*out), comms);
        },
        nb::arg("comms"), nb::arg("src"), nb::arg("dest").none());
    m.def(
        "_multi_reduce_scatter",
        [](const std::vector<Communicator>& comms, const MultiArray& src, std::optional<MultiArray> dest,
           nb::handle op) -> nb::object {
            const ReduceOp o = to_reduce_op(op);
            if (dest) {
                {
                    nb::gil_scoped_release release;
                    reduce_scatter(comms, src, *dest, o);
                }
                return nb::cast(*dest);
            }
            std::optional<MultiArray> out;
            {
                nb::gil_scoped_release release;
                out = reduce_scatter(comms, src, o);
            }
            return remembered(std::move(*out), comms);
        },
        nb::arg("comms"), nb::arg("src"), nb::arg("dest").none(), nb::arg("op"));
    m.def(
        "_multi_all_to_all",
        [](const std::vector<Communicator>& comms, const MultiArray& src, const MultiArray& dest) {
            nb::gil_scoped_release release;
            all_to_all(comms, src, dest);
        },
        nb::arg("comms"), nb::arg("src"), nb::arg("dest"));
}

}  // namespace kjarni::python
