// Collectives (kjarni/collectives.hpp) against a CPU reference on fresh random data: over every part
// of a MultiArray (all ranks driven by one thread) and per rank (ranks as threads over an in-process
// rendezvous), on the devices of one context (two PoCL devices with POCL_DEVICES="pthread pthread").
// On OpenCL this is the fallback engine; on CUDA with NCCL, NCCL.
//
// Kernels are compiled per (dtype, operation): the sweep runs every operation on float32 and int32
// and one or two operations on each other dtype, so that the compile cost stays small on PoCL.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "collectives/device_steps.hpp"
#include "dtype/half.hpp"
#include "kjarni/kjarni.hpp"
#include "support/random_data.hpp"
#include "support/test_devices.hpp"
#include "support/thread_ranks.hpp"

namespace kjarni::test {
namespace {

using namespace kjarni::dtypes;  // NOLINT: dtype names in the bad-input tests

constexpr ReduceOp all_ops[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::avg};

const char* op_name(ReduceOp op) {
    switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::max: return "max";
    case ReduceOp::min: return "min";
    case ReduceOp::avg: return "avg";
    }
    return "?";
}

template <class T>
constexpr bool is_half = std::is_same_v<T, float16_t>;
template <class T>
constexpr bool is_float = std::is_floating_point_v<T> || is_half<T>;

template <class T>
double to_double(T value) {
    if constexpr (is_half<T>) return detail::half_to_float(value.bits);
    else return static_cast<double>(value);
}

/// Fresh random values: floats over [-1, 1) (float16: [-4, 4), rounded to float16), integers over
/// their whole range so that sums and products wrap.
template <class T>
std::vector<T> random_values(std::size_t count) {
    std::vector<T> values(count);
    auto& engine = random_engine();
    if constexpr (is_half<T>) {
        std::uniform_real_distribution<float> distribution(-4.0f, 4.0f);
        for (auto& v : values) v.bits = detail::float_to_half(distribution(engine));
    } else if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> distribution(-1, 1);
        for (auto& v : values) v = distribution(engine);
    } else {
        for (auto& v : values) v = static_cast<T>(engine());  // every bit pattern of T
    }
    return values;
}

/// One rank's contribution combined into an accumulator the way NCCL defines it for integers:
/// two's complement wrap-around for sum and prod.
template <class T>
T combine_integers(T a, T b, ReduceOp op) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    case ReduceOp::prod:
        return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(a)) * static_cast<U>(b)));
    case ReduceOp::max: return std::max(a, b);
    case ReduceOp::min: return std::min(a, b);
    }
    return a;
}

/// Unit roundoff of the stored type.
template <class T>
double unit_roundoff() {
    if constexpr (is_half<T>) return 0x1p-11;
    else return std::numeric_limits<T>::epsilon() / 2;
}

/// Checks got[i] against element first + i of every rank's input reduced by `op`.
template <class T>
void expect_reduced(const std::vector<T>& got, const std::vector<std::vector<T>>& inputs, std::size_t first,
                    ReduceOp op, const std::string& what) {
    const std::size_t n = inputs.size();
    std::size_t failures = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if constexpr (is_float<T>) {
            // The reference in double, in rank order. The engines combine in another order (a ring
            // starts each block at another rank) and round after each of the n - 1 steps to T (float16
            // is computed in float32 and stored in float16); each rounding errs by at most u times the
            // magnitude of a partial result, which for sums is at most sum |x_r|, for products
            // prod |x_r|; avg's division adds one more rounding. So n * u * (that magnitude) bounds the
            // error; max and min pick one input: exact. float16 products may fall among the subnormals,
            // whose spacing (2^-24) is added.
            double reference = to_double(inputs[0][first + i]);
            double magnitude = std::abs(reference);
            for (std::size_t r = 1; r < n; ++r) {
                const double x = to_double(inputs[r][first + i]);
                switch (op) {
                case ReduceOp::sum:
                case ReduceOp::avg:
                    reference += x;
                    magnitude += std::abs(x);
                    break;
                case ReduceOp::prod:
                    reference *= x;
                    magnitude *= std::abs(x);
                    break;
                case ReduceOp::max: reference = std::max(reference, x); break;
                case ReduceOp::min: reference = std::min(reference, x); break;
                }
            }
            if (op == ReduceOp::avg) reference /= static_cast<double>(n);
            double tolerance = 0;
            if (op != ReduceOp::max && op != ReduceOp::min)
                tolerance = static_cast<double>(n) * unit_roundoff<T>() * magnitude + (is_half<T> ? 0x1p-24 : 0.0);
            const double value = to_double(got[i]);
            if (!(std::abs(value - reference) <= tolerance) && failures++ == 0)
                ADD_FAILURE() << what << " " << op_name(op) << ": element " << i << " is " << value << ", expected "
                              << reference << " within " << tolerance;
        } else {
            T reference = inputs[0][first + i];
            for (std::size_t r = 1; r < n; ++r) reference = combine_integers(reference, inputs[r][first + i], op);
            // NCCL's integer avg: the wrapped sum divided by the count, truncated toward zero (C's /).
            if (op == ReduceOp::avg) reference = static_cast<T>(reference / static_cast<T>(n));
            if (got[i] != reference && failures++ == 0)
                ADD_FAILURE() << what << " " << op_name(op) << ": element " << i << " is " << +got[i] << ", expected "
                              << +reference;
        }
    }
    EXPECT_EQ(failures, 0u) << what << " " << op_name(op) << ": elements wrong out of " << got.size();
}

template <class T>
void expect_bytes_equal(const std::vector<T>& got, const std::vector<T>& expected, const std::string& what) {
    ASSERT_EQ(got.size(), expected.size()) << what;
    std::size_t first_wrong = got.size();
    for (std::size_t i = 0; i < got.size() && first_wrong == got.size(); ++i)
        if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0) first_wrong = i;
    EXPECT_EQ(first_wrong, got.size()) << what << ": first wrong element";
}

template <class T>
std::vector<T> host_vector(const Array& array, const Queue& queue) {
    return array.get(queue).to_vector<T>();
}

// --- Over every part of a MultiArray --------------------------------------------------------

class CollectivesMulti : public ::testing::Test {
protected:
    void SetUp() override {
        context_ = shared_multi_device_context();
        if (context_ == nullptr) GTEST_SKIP() << "needs a platform with two devices (POCL_DEVICES=\"pthread pthread\")";
        queues_.emplace(MultiQueue::on_devices(context_->devices()));
        comms_ = Communicator::create_all(*queues_);
    }

    std::size_t n() const { return comms_.size(); }
    const Queue& queue_of(const MultiArray& array, std::size_t part) const { return (*queues_)[array.devices()[part]]; }

    /// A CloneSplay array whose parts hold each rank's own values.
    template <class T>
    MultiArray per_rank_clone(const std::vector<std::size_t>& shape, const std::vector<std::vector<T>>& inputs) {
        const MultiArray array =
            MultiArray::empty(context_->devices(), shape, DType::of<T>(), {}, std::make_shared<CloneSplay>());
        for (std::size_t p = 0; p < array.parts().size(); ++p)
            array.parts()[p].set(queue_of(array, p), HostArray::from(inputs[rank_of(array, p)], shape));
        return array;
    }

    std::size_t rank_of(const MultiArray& array, std::size_t part) const {
        for (const Communicator& comm : comms_)
            if (comm.queue().device() == array.devices()[part]) return static_cast<std::size_t>(comm.rank());
        throw std::logic_error("no communicator on the part's device");
    }

    template <class T>
    std::vector<std::vector<T>> inputs(std::size_t size) {
        std::vector<std::vector<T>> values;
        for (std::size_t r = 0; r < n(); ++r) values.push_back(random_values<T>(size));
        return values;
    }

    /// all_reduce (a new result and in place), reduce and reduce_scatter with `op`.
    /// `scale` multiplies the extents (several of the relay's segments in the staged test).
    template <class T>
    void check_reductions(ReduceOp op, std::size_t scale = 1) {
        const std::string what = DType::of<T>().name() + " over a MultiArray";
        // An extent that the count does not divide: the fallback's blocks are uneven.
        const std::vector<std::size_t> shape{n() * 37 * scale + 1, 3};
        const auto values = inputs<T>(shape[0] * shape[1]);
        const MultiArray src = per_rank_clone(shape, values);
        const MultiArray reduced = all_reduce(comms_, src, op);
        for (std::size_t p = 0; p < n(); ++p)
            expect_reduced(host_vector<T>(reduced.parts()[p], queue_of(reduced, p)), values, 0, op,
                           what + " all_reduce");

        const MultiArray dest =
            MultiArray::empty(context_->devices(), shape, DType::of<T>(), {}, std::make_shared<CloneSplay>());
        const int root = static_cast<int>(n()) - 1;
        reduce(comms_, src, dest, op, root);
        for (std::size_t p = 0; p < n(); ++p)
            if (rank_of(dest, p) == static_cast<std::size_t>(root))
                expect_reduced(host_vector<T>(dest.parts()[p], queue_of(dest, p)), values, 0, op, what + " reduce");

        const std::vector<std::size_t> even{n() * 11 * scale, 2};
        const auto blocks = inputs<T>(even[0] * even[1]);
        const MultiArray scattered = reduce_scatter(comms_, per_rank_clone(even, blocks), op);
        for (std::size_t p = 0; p < n(); ++p) {
            const std::size_t rank = rank_of(scattered, p);
            ASSERT_EQ(scattered.parts()[p].shape(), (std::vector<std::size_t>{11 * scale, 2}));
            expect_reduced(host_vector<T>(scattered.parts()[p], queue_of(scattered, p)), blocks, rank * 22 * scale, op,
                           what + " reduce_scatter");
        }

        all_reduce(comms_, src, src, op);  // in place
        for (std::size_t p = 0; p < n(); ++p)
            expect_reduced(host_vector<T>(src.parts()[p], queue_of(src, p)), values, 0, op,
                           what + " all_reduce in place");
    }

    /// broadcast, all_gather and all_to_all: bytes moved, no arithmetic.
    template <class T>
    void check_moves(std::size_t scale = 1) {
        const std::string what = DType::of<T>().name() + " over a MultiArray";
        const std::vector<std::size_t> shape{n() * 6 * scale, 5};
        const auto values = inputs<T>(shape[0] * shape[1]);

        const MultiArray array = per_rank_clone(shape, values);
        broadcast(comms_, array, 1);
        for (std::size_t p = 0; p < n(); ++p)
            expect_bytes_equal(host_vector<T>(array.parts()[p], queue_of(array, p)), values[1], what + " broadcast");

        const HostArray whole = HostArray::from(values[0], shape);
        const MultiArray split = MultiArray::from_host(*queues_, whole, std::make_shared<EqualSplay>());
        const MultiArray gathered = all_gather(comms_, split);
        for (std::size_t p = 0; p < n(); ++p) {
            EXPECT_EQ(gathered.parts()[p].shape(), shape);
            expect_bytes_equal(host_vector<T>(gathered.parts()[p], queue_of(gathered, p)), values[0],
                               what + " all_gather");
        }

        const MultiArray src = per_rank_clone(shape, values);
        const MultiArray dest =
            MultiArray::empty(context_->devices(), shape, DType::of<T>(), {}, std::make_shared<CloneSplay>());
        all_to_all(comms_, src, dest);
        const std::size_t block = shape[0] * shape[1] / n();
        for (std::size_t p = 0; p < n(); ++p) {
            const std::size_t j = rank_of(dest, p);
            std::vector<T> expected;
            for (std::size_t i = 0; i < n(); ++i)
                expected.insert(expected.end(), values[i].begin() + static_cast<std::ptrdiff_t>(j * block),
                                values[i].begin() + static_cast<std::ptrdiff_t>((j + 1) * block));
            expect_bytes_equal(host_vector<T>(dest.parts()[p], queue_of(dest, p)), expected, what + " all_to_all");
        }
    }

    Context* context_ = nullptr;
    std::optional<MultiQueue> queues_;
    std::vector<Communicator> comms_;
};

TEST_F(CollectivesMulti, EveryOperationOnFloat32AndInt32) {
    for (ReduceOp op : all_ops) {
        check_reductions<float>(op);
        check_reductions<std::int32_t>(op);
    }
}

TEST_F(CollectivesMulti, OtherDtypes) {
    check_reductions<double>(ReduceOp::sum);
    check_reductions<float16_t>(ReduceOp::avg);
    check_reductions<std::int8_t>(ReduceOp::prod);
    check_reductions<std::uint8_t>(ReduceOp::max);
    check_reductions<std::int64_t>(ReduceOp::avg);
    check_reductions<std::uint64_t>(ReduceOp::min);
    check_reductions<std::uint32_t>(ReduceOp::sum);
}

TEST_F(CollectivesMulti, BroadcastAllGatherAllToAll) {
    check_moves<float>();
    check_moves<std::uint8_t>();  // byte offsets of one-byte elements
    check_moves<double>();
}

TEST_F(CollectivesMulti, RelayedThroughTheHost) {
    // The path NVIDIA's OpenCL takes between its devices (local_engine.cpp's relay), forced here
    // with 64-byte chunks and segments of 451 bytes: every move is many chunks, ragged at its end,
    // and the larger calls span several segments, which reuse the host memory and temporaries
    // under event ordering only. Every operation and every dtype, with the (dtype, operation)
    // pairs of the tests above (their kernels are compiled once).
    detail::relay_through_the_host_for_testing(64);
    struct Restore {
        ~Restore() { detail::relay_through_the_host_for_testing(0); }
    } restore;
    for (ReduceOp op : all_ops) {
        check_reductions<float>(op, op == ReduceOp::sum ? 5 : 1);
        check_reductions<std::int32_t>(op);
    }
    check_reductions<double>(ReduceOp::sum, 3);
    check_reductions<float16_t>(ReduceOp::avg);
    check_reductions<std::int8_t>(ReduceOp::prod, 7);
    check_reductions<std::uint8_t>(ReduceOp::max);
    check_reductions<std::int64_t>(ReduceOp::avg);
    check_reductions<std::uint64_t>(ReduceOp::min);
    check_reductions<std::uint32_t>(ReduceOp::sum);
    check_moves<float>(4);
    check_moves<std::uint8_t>(9);
    check_moves<double>();
}

TEST_F(CollectivesMulti, EngineAndRanks) {
    const bool cuda = context_->api().id() == ApiId::cuda();
    for (std::size_t i = 0; i < n(); ++i) {
        EXPECT_EQ(comms_[i].rank(), static_cast<int>(i));
        EXPECT_EQ(comms_[i].count(), static_cast<int>(n()));
        if (!cuda) {
            EXPECT_EQ(comms_[i].engine(), "fallback");
        }
    }
}

TEST_F(CollectivesMulti, BadMultiArrays) {
    const MultiArray uneven = MultiArray::empty(context_->devices(), {n() * 3 + 1}, DType(float32));
    EXPECT_THROW(all_gather(comms_, uneven), ArgumentError);  // parts of unequal sizes
    const MultiArray complex = MultiArray::empty(context_->devices(), {n() * 2}, DType(complex64));
    try {
        all_reduce(comms_, complex);
        ADD_FAILURE() << "complex64 accepted";
    } catch (const ArgumentError& error) {
        EXPECT_EQ(error.argument(), "src");
        EXPECT_NE(std::string(error.what()).find("complex64"), std::string::npos) << error.what();
    }
    const MultiArray a = MultiArray::empty(context_->devices(), {n() * 2}, DType(float32));
    const MultiArray b = MultiArray::empty(context_->devices(), {n() * 2}, DType(int32));
    EXPECT_THROW(all_reduce(comms_, a, b), ArgumentError);
    EXPECT_THROW(broadcast(comms_, a, static_cast<int>(n())), ArgumentError);
    EXPECT_THROW(all_reduce(std::span(comms_).first(1), a), ArgumentError);
}

/// Every rank's random input.
template <class T>
std::vector<std::vector<T>> rank_inputs(int count, std::size_t size) {
    std::vector<std::vector<T>> values;
    for (int r = 0; r < count; ++r) values.push_back(random_values<T>(size));
    return values;
}

/// Every collective with every op in `ops` over `count` ranks (threads) through
/// Communicator::from_rendezvous, rank r on device_of(r).
template <class T>
void check_per_rank(int count, const std::vector<ReduceOp>& ops, const std::function<BoundDevice(int)>& device_of,
                    CollectiveEngine engine = CollectiveEngine::automatic) {
    const std::string what = DType::of<T>().name() + " per rank";
    // 3 * 37 + 2 elements: blocks of a ring of three ranks of unequal lengths.
    const std::vector<std::size_t> shape{static_cast<std::size_t>(count) * 37 + 2};
    const std::vector<std::size_t> even{static_cast<std::size_t>(count) * 8, 3};
    const auto values = rank_inputs<T>(count, shape[0]);
    const auto blocks = rank_inputs<T>(count, even[0] * even[1]);
    run_ranks(count, [&](Rendezvous& rendezvous) {
        const int rank = rendezvous.rank();
        const auto me = static_cast<std::size_t>(rank);
        const Queue queue(device_of(rank));
        const Communicator comm = Communicator::from_rendezvous(queue, rendezvous, engine);
        EXPECT_EQ(comm.rank(), rank);
        EXPECT_EQ(comm.count(), count);
        const Array src = Array::from_host(queue, HostArray::from(values[me], shape));
        const Array src_blocks = Array::from_host(queue, HostArray::from(blocks[me], even));
        for (ReduceOp op : ops) {
            expect_reduced(host_vector<T>(comm.all_reduce(src, op), queue), values, 0, op, what + " all_reduce");
            const std::optional<Array> reduced = comm.reduce(src, op, 1);
            EXPECT_EQ(reduced.has_value(), rank == 1);
            if (reduced) expect_reduced(host_vector<T>(*reduced, queue), values, 0, op, what + " reduce");
            const Array scattered = comm.reduce_scatter(src_blocks, op);
            EXPECT_EQ(scattered.shape(), (std::vector<std::size_t>{8, 3}));
            expect_reduced(host_vector<T>(scattered, queue), blocks, me * 24, op, what + " reduce_scatter");
        }
        const Array copy = src.copy(queue);
        comm.all_reduce(copy, copy, ops[0]);  // in place
        expect_reduced(host_vector<T>(copy, queue), values, 0, ops[0], what + " all_reduce in place");

        const Array gathered = comm.all_gather(src_blocks);
        EXPECT_EQ(gathered.shape(), (std::vector<std::size_t>{static_cast<std::size_t>(count), even[0], even[1]}));
        std::vector<T> all;
        for (const auto& v : blocks) all.insert(all.end(), v.begin(), v.end());
        expect_bytes_equal(host_vector<T>(gathered, queue), all, what + " all_gather");
        EXPECT_EQ(comm.all_gather(src_blocks, 0).shape(),
                  (std::vector<std::size_t>{static_cast<std::size_t>(count) * even[0], even[1]}));

        const Array broadcast = src.copy(queue);
        comm.broadcast(broadcast, count - 1);
        expect_bytes_equal(host_vector<T>(broadcast, queue), values[static_cast<std::size_t>(count - 1)],
                           what + " broadcast");

        const Array exchanged = comm.all_to_all(src_blocks);
        const std::size_t block = blocks[0].size() / static_cast<std::size_t>(count);
        std::vector<T> expected;
        for (const auto& v : blocks)
            expected.insert(expected.end(), v.begin() + static_cast<std::ptrdiff_t>(me * block),
                            v.begin() + static_cast<std::ptrdiff_t>((me + 1) * block));
        expect_bytes_equal(host_vector<T>(exchanged, queue), expected, what + " all_to_all");

        // A ring of send/recv, ordered so that blocking sends cannot deadlock.
        const Array received = Array::empty(queue.device(), shape, DType::of<T>());
        const int next = (rank + 1) % count, previous = (rank + count - 1) % count;
        if (rank == 0) {
            comm.send(src, next);
            comm.recv(received, previous);
        } else {
            comm.recv(received, previous);
            comm.send(src, next);
        }
        expect_bytes_equal(host_vector<T>(received, queue), values[static_cast<std::size_t>(previous)],
                           what + " send/recv");
    });
}

// --- Per rank, ranks as threads -------------------------------------------------------------

class CollectivesPerRank : public ::testing::Test {
protected:
    void SetUp() override {
        context_ = shared_multi_device_context();
        if (context_ == nullptr) GTEST_SKIP() << "needs a platform with two devices (POCL_DEVICES=\"pthread pthread\")";
    }

    /// Rank r's device: ranks take the context's devices in turn (three ranks on two devices: two
    /// share one, with queues of their own).
    BoundDevice device_of(int rank) const {
        return context_->devices()[static_cast<std::size_t>(rank) % context_->device_count()];
    }

    Context* context_ = nullptr;
};

TEST_F(CollectivesPerRank, EveryCollectiveAndOperationOnThreeRanks) {
    const auto device = [this](int rank) { return device_of(rank); };
    check_per_rank<float>(3, {all_ops, all_ops + 5}, device);
    check_per_rank<std::int32_t>(3, {all_ops, all_ops + 5}, device);
}

TEST_F(CollectivesPerRank, OtherDtypesOnTwoRanks) {
    const auto device = [this](int rank) { return device_of(rank); };
    check_per_rank<float16_t>(2, {ReduceOp::avg}, device);
    check_per_rank<std::int64_t>(2, {ReduceOp::avg}, device);
    check_per_rank<std::uint8_t>(2, {ReduceOp::max}, device);
    check_per_rank<double>(2, {ReduceOp::sum}, device);
}

TEST_F(CollectivesPerRank, FromACliqueId) {
    const CliqueId id = CliqueId::create(Queue(device_of(0)));
    const CliqueId copy = CliqueId::from_bytes(id.bytes());  // as another rank gets it
    EXPECT_EQ(copy, id);
    const auto values = rank_inputs<float>(2, 100);
    run_ranks(2, [&](Rendezvous& rendezvous) {
        const int rank = rendezvous.rank();
        const Queue queue(device_of(rank));
        const Communicator comm(queue, copy, 2, rank);
        const Array src = Array::from_host(queue, HostArray::from(values[static_cast<std::size_t>(rank)], {100}));
        expect_reduced(host_vector<float>(comm.all_reduce(src), queue), values, 0, ReduceOp::sum, "from a clique id");
        // The same communicator on another queue of its device.
        const Queue other(queue.device());
        expect_reduced(host_vector<float>(comm.on(other).all_reduce(src, ReduceOp::max), other), values, 0,
                       ReduceOp::max, "on another queue");
    });
}

// --- One rank, and bad input, on every device ------------------------------------------------

class CollectivesDevice : public DeviceTest {};

TEST_P(CollectivesDevice, OneRankIsTheIdentity) {
    // Needs no kernel: a clique of one reduces nothing.
    const std::vector<Communicator> comms = Communicator::create_all(MultiQueue({queue()}));
    ASSERT_EQ(comms.size(), 1u);
    const Communicator& comm = comms[0];
    const auto values = random_values<float>(64);
    const Array src = Array::from_host(queue(), HostArray::from(values, {8, 8}));
    for (ReduceOp op : all_ops)
        expect_bytes_equal(host_vector<float>(comm.all_reduce(src, op), queue()), values, op_name(op));
    expect_bytes_equal(host_vector<float>(comm.all_gather(src), queue()), values, "all_gather");
    expect_bytes_equal(host_vector<float>(comm.reduce_scatter(src), queue()), values, "reduce_scatter");
    expect_bytes_equal(host_vector<float>(*comm.reduce(src, ReduceOp::sum, 0), queue()), values, "reduce");
}

TEST_P(CollectivesDevice, FallbackRanksSharingTheDevice) {
    // The fallback engine asked for explicitly (on CUDA: the engine of CUDA without NCCL), two ranks
    // with queues of their own on this one device.
    const auto device = [this](int) { return bound_device(); };
    check_per_rank<float>(2, {ReduceOp::sum, ReduceOp::avg}, device, CollectiveEngine::fallback);
    check_per_rank<std::int32_t>(2, {ReduceOp::prod}, device, CollectiveEngine::fallback);
}

TEST_P(CollectivesDevice, BadInputNamesTheCulprit) {
    const std::vector<Communicator> comms = Communicator::create_all(MultiQueue({queue()}));
    const Communicator& comm = comms[0];
    const auto expect_argument = [](auto&& call, const std::string& argument, const std::string& mention) {
        try {
            call();
            ADD_FAILURE() << "no ArgumentError for " << argument;
        } catch (const ArgumentError& error) {
            EXPECT_EQ(error.argument(), argument) << error.what();
            EXPECT_NE(std::string(error.what()).find(mention), std::string::npos) << error.what();
        }
    };
    const Array f = Array::zeros(queue(), {6, 4}, DType(float32));
    expect_argument([&] { comm.all_reduce(Array::zeros(queue(), {4}, DType(complex64))); }, "src", "complex64");
    expect_argument([&] { comm.all_reduce(Array::zeros(queue(), {4}, DType(bool_))); }, "src", "bool");
    expect_argument([&] { comm.all_reduce(Array::zeros(queue(), {4}, DType(int16))); }, "src", "int16");
    expect_argument([&] { comm.all_reduce(f, Array::zeros(queue(), {6, 4}, DType(int32))); }, "dest", "int32");
    expect_argument([&] { comm.all_reduce(f, Array::zeros(queue(), {5}, DType(float32))); }, "dest", "24");
    expect_argument([&] { comm.all_reduce(f.transpose()); }, "src", "contiguous");
    expect_argument([&] { comm.broadcast(f, 1); }, "root", "1");
    expect_argument([&] { comm.reduce(f, ReduceOp::sum, -1); }, "root", "-1");
    expect_argument([&] { comm.all_gather(f, 2); }, "nd_up", "2");
    expect_argument([&] { comm.all_gather(f, Array::zeros(queue(), {25}, DType(float32))); }, "dest", "24");
    expect_argument([&] { comm.send(f, 0); }, "peer", "own rank");
    expect_argument([&] { comm.recv(f, 3); }, "peer", "3");
    expect_argument([&] { comm.all_to_all(f, f); }, "dest", "in place");
    expect_argument([&] { static_cast<void>(CliqueId::from_bytes(std::vector<std::byte>(12))); }, "bytes", "12");
    expect_argument([&] { Communicator(queue(), CliqueId::create(queue(), CollectiveEngine::fallback), 2, 2); }, "rank",
                    "2");
    if (Context* multi = shared_multi_device_context(); multi != nullptr) {
        const Array elsewhere = Array::empty(multi->devices()[1], {6, 4}, DType(float32));
        expect_argument([&] { comm.all_reduce(elsewhere); }, "src", "is on");
    }
    if (context().api().id() != ApiId::cuda()) {
        try {
            static_cast<void>(CliqueId::create(queue(), CollectiveEngine::nccl));
            ADD_FAILURE() << "NCCL on a non-CUDA device";
        } catch (const UnsupportedError& error) {
            EXPECT_NE(std::string(error.what()).find("libnccl.so.2"), std::string::npos) << error.what();
        }
    }
}

/// Rank 1 of 2 whose peer's bytes are given: what from_rendezvous gathers and broadcasts.
class ScriptedRendezvous final : public Rendezvous {
public:
    ScriptedRendezvous(std::vector<std::byte> peer_capability, std::vector<std::byte> clique_id)
        : peer_capability_(std::move(peer_capability)), clique_id_(std::move(clique_id)) {}
    int rank() const noexcept override { return 1; }
    int count() const noexcept override { return 2; }
    std::vector<std::byte> broadcast(std::span<const std::byte>, int) override { return clique_id_; }
    std::vector<std::vector<std::byte>> all_gather(std::span<const std::byte> data) override {
        return {peer_capability_, std::vector<std::byte>(data.begin(), data.end())};
    }
    void barrier() override {}
    void send(int, std::span<const std::byte>) override { throw Error("not scripted"); }
    void recv(int, std::span<std::byte>) override { throw Error("not scripted"); }
    void exchange(int, std::span<const std::byte>, int, std::span<std::byte>) override { throw Error("not scripted"); }

private:
    std::vector<std::byte> peer_capability_, clique_id_;
};

// What from_rendezvous receives from other processes decides the engine of every rank: bytes that
// are no capability or no clique id give a PeerError naming the rank that sent them.
TEST_P(CollectivesDevice, BytesFromOtherRanksAreChecked) {
    const CliqueId id = CliqueId::create(queue(), CollectiveEngine::fallback);
    const std::vector<std::byte> fallback_id(id.bytes().begin(), id.bytes().end());
    const auto peer_named = [&](std::vector<std::byte> capability, std::vector<std::byte> clique_id,
                                CollectiveEngine engine) {
        ScriptedRendezvous rendezvous(std::move(capability), std::move(clique_id));
        try {
            static_cast<void>(Communicator::from_rendezvous(queue(), rendezvous, engine));
        } catch (const PeerError& error) {
            return error.peer();
        }
        return -2;  // accepted
    };
    const auto text = [](const std::string& s) {
        std::vector<std::byte> bytes{std::byte{0}};
        for (const char c : s) bytes.push_back(static_cast<std::byte>(c));
        return bytes;
    };
    const auto automatic = CollectiveEngine::automatic;
    EXPECT_EQ(peer_named(text("0000:65:00.0"), fallback_id, automatic), -2);       // a well-formed peer
    EXPECT_EQ(peer_named({}, fallback_id, automatic), 0);                          // no flag
    EXPECT_EQ(peer_named({std::byte{7}}, fallback_id, automatic), 0);              // a flag of neither value
    EXPECT_EQ(peer_named(text(std::string(65, '0')), fallback_id, automatic), 0);  // a bus id too long
    EXPECT_EQ(peer_named(text("00\n0"), fallback_id, automatic), 0);               // not printable
    // The clique id from rank 0: exactly CliqueId::size bytes, whatever the engine.
    for (const std::size_t size : {std::size_t{0}, std::size_t{12}, CliqueId::size + 1}) {
        EXPECT_EQ(peer_named(text(""), std::vector<std::byte>(size), CollectiveEngine::fallback), 0) << size;
    }
}

TEST_P(CollectivesDevice, AbortEndsTheCommunicator) {
    const std::vector<Communicator> comms = Communicator::create_all(MultiQueue({queue()}));
    const Communicator& comm = comms[0];
    const auto values = random_values<float>(256);
    const Array src = Array::from_host(queue(), HostArray::from(values, {256}));
    const Array sum = comm.all_reduce(src);
    comm.wait(std::chrono::seconds(60));
    expect_bytes_equal(host_vector<float>(sum, queue()), values, "before the abort");
    EXPECT_FALSE(comm.aborted());
    comm.abort();
    comm.abort();  // idempotent
    EXPECT_TRUE(comm.aborted());
    const Communicator other_queue = comm.on(Queue(queue().device()));
    EXPECT_TRUE(other_queue.aborted()) << "the communicator on another queue is the same one";
    for (const auto& call :
         std::vector<std::function<void()>>{[&] { comm.all_reduce(src, src); }, [&] { comm.broadcast(src, 0); },
                                            [&] { comm.wait(); }, [&] { other_queue.all_gather(src); }}) {
        try {
            call();
            ADD_FAILURE() << "an aborted communicator took a call";
        } catch (const PeerError& error) {
            EXPECT_NE(std::string(error.what()).find("abort"), std::string::npos) << error.what();
        }
    }
    try {
        Communicator(queue(), CliqueId::create(queue(), CollectiveEngine::fallback), 1, 0,
                     std::chrono::milliseconds(0));
        ADD_FAILURE() << "a timeout of 0 ms";
    } catch (const ArgumentError& error) {
        EXPECT_EQ(error.argument(), "timeout") << error.what();
    }
}

TEST_P(CollectivesDevice, NcclInitializationWithAMissingRankTimesOut) {
    // A clique of two whose second rank never comes: NCCL alone would wait forever.
    if (context().api().id() != ApiId::cuda()) GTEST_SKIP() << "NCCL runs on CUDA devices only";
    CliqueId id;
    try {
        id = CliqueId::create(queue(), CollectiveEngine::nccl);
    } catch (const UnsupportedError& error) {
        GTEST_SKIP() << error.what();
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        Communicator(queue(), id, 2, 0, std::chrono::seconds(3));
        ADD_FAILURE() << "a clique of two was made by one rank";
    } catch (const PeerError& error) {
        EXPECT_NE(std::string(error.what()).find("3000 ms"), std::string::npos) << error.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

KJARNI_INSTANTIATE_DEVICE_TESTS(CollectivesDevice);

}  // namespace
}  // namespace kjarni::test
