// Collective bandwidth with one process per rank (how NCCL jobs usually run: mpirun, torchrun, Slurm),
// in nccl-tests' terms (see collectives_bench.cpp for algbw and busbw). The ranks meet through
// rendezvous_from_environment, so any launcher that sets Open MPI's, PMI's, Slurm's or torchrun's
// variables works:
//
//   mpirun -np 2 kjarni_bench_collectives_ranks [--json=FILE]
//
// Rank r takes device r % n of the devices KJARNI_BENCH_DEVICES names (a KJARNI_TEST-style list of
// specifiers; every device when unset), and makes its communicator with Communicator::from_rendezvous
// (NCCL where every rank has a GPU of its own, the fallback otherwise). On CUDA each size is also run
// by NCCL called directly (ncclCommInitRank on the same devices, streams and buffers): the baseline.
// The variants alternate within every repetition (interleaved), so both see the same noise.
// Ranks stay in lock-step: no adaptive iteration counts. A repetition is a barrier, then enough
// calls back to back to last about a millisecond, then a wait for the queue; the time per call is
// rank 0's. Sizes as in collectives_bench (KJARNI_BENCH_COLL_MIN/MAX/FACTOR, KJARNI_BENCH_COLL_OPS),
// KJARNI_BENCH_REPS repetitions (default 9). Rank 0 prints a table of medians and, with --json,
// writes every repetition in Google Benchmark's JSON form (bench/table.py reads it).

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kjarni/kjarni.hpp"

#ifdef KJARNI_BENCH_RAW_CUDA
#include "raw_cuda.hpp"
#include "vendor/nccl_library.hpp"
#endif

namespace {

enum class Op { all_reduce, all_gather, reduce_scatter, broadcast };

const char* op_name(Op op) {
    switch (op) {
    case Op::all_reduce: return "all_reduce";
    case Op::all_gather: return "all_gather";
    case Op::reduce_scatter: return "reduce_scatter";
    case Op::broadcast: return "broadcast";
    }
    return "?";
}

double bus_factor(Op op, std::size_t n) {
    const double ranks = static_cast<double>(n);
    switch (op) {
    case Op::all_reduce: return 2.0 * (ranks - 1) / ranks;
    case Op::all_gather:
    case Op::reduce_scatter: return (ranks - 1) / ranks;
    case Op::broadcast: return 1.0;
    }
    return 1.0;
}

std::size_t env_bytes(const char* name, std::size_t fallback) {
    const char* text = std::getenv(name);
    if (text == nullptr) return fallback;
    std::size_t pos = 0;
    const std::string s(text);
    std::size_t value = std::stoull(s, &pos);
    if (pos < s.size()) {
        switch (s[pos]) {
        case 'K':
        case 'k': value <<= 10; break;
        case 'M':
        case 'm': value <<= 20; break;
        case 'G':
        case 'g': value <<= 30; break;
        default: break;
        }
    }
    return value;
}

std::vector<Op> selected_ops() {
    const char* text = std::getenv("KJARNI_BENCH_COLL_OPS");
    if (text == nullptr) return {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast};
    std::vector<Op> ops;
    std::stringstream list(text);
    std::string name;
    while (std::getline(list, name, ','))
        for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast})
            if (name == op_name(op)) ops.push_back(op);
    return ops;
}

/// One rank's operands of a collective of S bytes (nccl-tests' S).
struct Operands {
    std::size_t bytes;
    kjarni::Array src, dst;
    std::size_t count;  // elements NCCL's call takes (send count; recv count for reduce_scatter)
};

Operands make_operands(Op op, std::size_t bytes, const kjarni::Queue& queue, std::size_t n) {
    const kjarni::DType f32(kjarni::DType::Kind::float32);
    std::size_t total = std::max<std::size_t>(bytes / 4, 1);
    if (op == Op::all_gather || op == Op::reduce_scatter) total = std::max(total / n, std::size_t{1}) * n;
    const auto zeros = [&](std::size_t size) { return kjarni::Array::zeros(queue, {size}, f32); };
    switch (op) {
    case Op::all_reduce: return {total * 4, zeros(total), zeros(total), total};
    case Op::broadcast: {
        const kjarni::Array array = zeros(total);
        return {total * 4, array, array, total};
    }
    case Op::all_gather: return {total * 4, zeros(total / n), zeros(total), total / n};
    case Op::reduce_scatter: return {total * 4, zeros(total), zeros(total / n), total / n};
    }
    return {0, zeros(1), zeros(1), 0};
}

void kjarni_call(Op op, const kjarni::Communicator& comm, const Operands& o) {
    switch (op) {
    case Op::all_reduce: comm.all_reduce(o.src, o.dst); break;
    case Op::all_gather: comm.all_gather(o.src, o.dst); break;
    case Op::reduce_scatter: comm.reduce_scatter(o.src, o.dst); break;
    case Op::broadcast: comm.broadcast(o.src, 0); break;
    }
}

#ifdef KJARNI_BENCH_RAW_CUDA

namespace nccl = kjarni::detail::nccl;

/// NCCL's own communicator for this rank, made directly: rank 0's ncclGetUniqueId sent through the
/// rendezvous, then a blocking ncclCommInitRank with the device's context current. nullptr (on
/// every rank alike) when NCCL or libcuda is missing or the communicator is not NCCL's.
nccl::Comm raw_comm(kjarni::Rendezvous& rendezvous, const kjarni::Queue& queue, bool kjarni_uses_nccl) {
    const nccl::Library* f = nccl::load();
    const kjarni_bench::RawCuda* cuda = kjarni_bench::raw_cuda();
    if (!kjarni_uses_nccl || f == nullptr || cuda == nullptr) return nullptr;
    nccl::UniqueId id{};
    if (rendezvous.rank() == 0) f->GetUniqueId(&id);
    const auto bytes = rendezvous.broadcast(std::as_bytes(std::span(&id, 1)), 0);
    std::memcpy(&id, bytes.data(), sizeof id);
    const kjarni::BoundDevice& device = queue.device();
    cuda->set_current(reinterpret_cast<CUcontext>(device.context().native_handle(device.index())));
    nccl::Comm comm = nullptr;
    if (f->CommInitRank(&comm, rendezvous.count(), id, rendezvous.rank()) != nccl::success) return nullptr;
    return comm;
}

void* address(const kjarni::Array& array) {
    return reinterpret_cast<void*>(array.base().native_handle() + array.base().offset() + array.offset());  // NOLINT
}

void raw_call(Op op, nccl::Comm comm, const kjarni::Queue& queue, const Operands& o) {
    const nccl::Library& f = *nccl::load();
    const auto stream = reinterpret_cast<nccl::Stream>(queue.native_handle());
    switch (op) {
    case Op::all_reduce:
        f.AllReduce(address(o.src), address(o.dst), o.count, nccl::float32, nccl::sum, comm, stream);
        break;
    case Op::all_gather: f.AllGather(address(o.src), address(o.dst), o.count, nccl::float32, comm, stream); break;
    case Op::reduce_scatter:
        f.ReduceScatter(address(o.src), address(o.dst), o.count, nccl::float32, nccl::sum, comm, stream);
        break;
    case Op::broadcast: f.Broadcast(address(o.src), address(o.dst), o.count, nccl::float32, 0, comm, stream); break;
    }
}

#endif

struct Variant {
    std::string name;
    std::function<void(Op, const Operands&)> call;
};

struct Result {
    std::string name;  // CASE/VARIANT/TAG
    Op op;
    std::size_t bytes;
    std::vector<double> seconds;  // per call, one per repetition
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string json_path;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument.rfind("--json=", 0) == 0) json_path = argument.substr(7);
    }
    try {
        const auto rendezvous = kjarni::rendezvous_from_environment();
        const int rank = rendezvous->rank();
        const auto n = static_cast<std::size_t>(rendezvous->count());
        const char* selection = std::getenv("KJARNI_BENCH_DEVICES");
        const std::vector<kjarni::Device> devices =
            kjarni::devices_from_specifiers(selection != nullptr ? selection : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device for the benchmark");
        const kjarni::Device& device = devices[static_cast<std::size_t>(rank) % devices.size()];
        const kjarni::Context context = kjarni::Context::from_devices(device);
        const kjarni::Queue queue(context.devices()[0]);
        const kjarni::Communicator comm = kjarni::Communicator::from_rendezvous(queue, *rendezvous);
        const bool cuda = context.api().id() == kjarni::ApiId::cuda();
        const std::string tag =
            fmt::format("{}/{}x{}/{}/processes", context.api().shortcut(), n, device.name(), comm.engine());
        fmt::print(stderr, "rank {} of {}: {} on {}\n", rank, n, comm.engine(), device.name());

        std::vector<Variant> variants{{"kjarni", [&](Op op, const Operands& o) { kjarni_call(op, comm, o); }}};
#ifdef KJARNI_BENCH_RAW_CUDA
        const nccl::Comm raw = raw_comm(*rendezvous, queue, comm.engine() == "NCCL");
        if (raw != nullptr)
            variants.push_back({"nccl_direct", [&](Op op, const Operands& o) { raw_call(op, raw, queue, o); }});
#endif
        const std::size_t min = env_bytes("KJARNI_BENCH_COLL_MIN", 8);
        const std::size_t max = env_bytes("KJARNI_BENCH_COLL_MAX", cuda ? std::size_t{1} << 30 : std::size_t{16} << 20);
        const std::size_t factor = std::max<std::size_t>(env_bytes("KJARNI_BENCH_COLL_FACTOR", 4), 2);
        const auto reps =
            static_cast<std::size_t>(std::max(1LL, static_cast<long long>(env_bytes("KJARNI_BENCH_REPS", 9))));

        std::vector<Result> results;
        for (const Op op : selected_ops()) {
            for (std::size_t bytes = min; bytes <= max; bytes *= factor) {
                const Operands operands = make_operands(op, bytes, queue, n);
                const std::size_t batch =
                    std::clamp<std::size_t>((std::size_t{1} << 22) / std::max<std::size_t>(operands.bytes, 1), 1, 50);
                std::vector<Result> these;
                for (const Variant& variant : variants) {
                    these.push_back({fmt::format("{}/{}/{}/{}", op_name(op), variant.name, tag, operands.bytes),
                                     op,
                                     operands.bytes,
                                     {}});
                    variant.call(op, operands);  // connections and kernels: not timed
                }
                comm.wait();
                for (std::size_t rep = 0; rep < reps; ++rep) {
                    for (std::size_t v = 0; v < variants.size(); ++v) {
                        rendezvous->barrier();
                        const auto start = std::chrono::steady_clock::now();
                        for (std::size_t i = 0; i < batch; ++i) variants[v].call(op, operands);
                        comm.wait();
                        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
                        these[v].seconds.push_back(elapsed.count() / static_cast<double>(batch));
                    }
                }
                results.insert(results.end(), these.begin(), these.end());
                if (bytes > max / factor) break;  // no overflow past max
            }
        }
        rendezvous->barrier();
        if (rank != 0) return 0;

        fmt::print("{:<72} {:>12} {:>10} {:>10} {:>8}\n", "case/variant/tag/bytes", "time_us", "algbw", "busbw",
                   "ratio");
        for (std::size_t i = 0; i < results.size(); ++i) {
            const Result& r = results[i];
            const double t = median(r.seconds);
            const double algbw = static_cast<double>(r.bytes) / t / 1e9;
            const bool baseline = variants.size() > 1 && i % variants.size() != 0;
            const std::string ratio =
                variants.size() > 1 && !baseline ? fmt::format("{:.3f}", t / median(results[i + 1].seconds)) : "";
            fmt::print("{:<72} {:>12.2f} {:>10.2f} {:>10.2f} {:>8}\n", r.name, t * 1e6, algbw,
                       algbw * bus_factor(r.op, n), ratio);
        }
        if (!json_path.empty()) {
            std::ofstream out(json_path);
            out << "{\"context\": {\"executable\": \"kjarni_bench_collectives_ranks\"}, \"benchmarks\": [\n";
            bool first = true;
            for (const Result& r : results) {
                for (const double t : r.seconds) {
                    const double algbw = static_cast<double>(r.bytes) / t;
                    out << (first ? "" : ",\n")
                        << fmt::format("{{\"name\": \"{0}\", \"run_name\": \"{0}\", \"run_type\": \"iteration\", "
                                       "\"real_time\": {1}, \"time_unit\": \"us\", \"algbw_bytes_per_second\": {2}, "
                                       "\"busbw_bytes_per_second\": {3}}}",
                                       r.name, t * 1e6, algbw, algbw * bus_factor(r.op, n));
                    first = false;
                }
            }
            out << "\n]}\n";
        }
        return 0;
    } catch (const std::exception& error) {
        fmt::print(stderr, "kjarni_bench_collectives_ranks: {}\n", error.what());
        return 1;
    }
}
