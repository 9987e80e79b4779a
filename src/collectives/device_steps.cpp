#include "collectives/device_steps.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

#include "kjarni/elementwise.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/operand.hpp"
#include "staging/transfer_stager.hpp"

namespace kjarni::detail {

namespace {

/// `value` as a scalar operand of an integer dtype.
Operand integer_operand(int value, const DType& dtype) {
    switch (dtype.kind()) {
    case DType::Kind::int8: return Operand(static_cast<std::int8_t>(value));
    case DType::Kind::uint8: return Operand(static_cast<std::uint8_t>(value));
    case DType::Kind::int32: return Operand(static_cast<std::int32_t>(value));
    case DType::Kind::uint32: return Operand(static_cast<std::uint32_t>(value));
    case DType::Kind::int64: return Operand(static_cast<std::int64_t>(value));
    default: return Operand(static_cast<std::uint64_t>(value));
    }
}

bool is_integer_dtype(const DType& dtype) {
    switch (dtype.kind()) {
    case DType::Kind::int8:
    case DType::Kind::uint8:
    case DType::Kind::int32:
    case DType::Kind::uint32:
    case DType::Kind::int64:
    case DType::Kind::uint64: return true;
    default: return false;
    }
}

}  // namespace

void combine(const Queue& queue, const Array& accumulator, const Array& x, ReduceOp op) {
    // numpy's promotion keeps the dtype of two arrays of one dtype (int8 + int8 is int8 and wraps,
    // as NCCL's sum does), so every result assigns back without a cast.
    switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: assign(queue, accumulator, Expr(accumulator) + Expr(x)); break;
    case ReduceOp::prod: assign(queue, accumulator, Expr(accumulator) * Expr(x)); break;
    case ReduceOp::max: assign(queue, accumulator, maximum(accumulator, x)); break;
    case ReduceOp::min: assign(queue, accumulator, minimum(accumulator, x)); break;
    }
}

void divide_for_avg(const Queue& queue, const Array& accumulator, ReduceOp op, int count) {
    if (op != ReduceOp::avg || count == 1) return;
    if (is_integer_dtype(accumulator.dtype())) {
        // C's integer division truncates toward zero, as NCCL's SumPostDiv does; the expression
        // layer's `/` is numpy's true division (to float64), not this.
        static const ElementwiseKernel divide = [] {
            ElementwiseOptions options;
            options.name = "kjarni_collective_avg";
            return ElementwiseKernel::from_names({"y", "ranks"}, "y[i] = y[i] / ranks", options);
        }();
        divide(queue, accumulator, integer_operand(count, accumulator.dtype()));
    } else {
        // A weak integer scalar keeps the float dtype (NEP 50).
        assign(queue, accumulator, Expr(accumulator) / count);
    }
}

Buffer bytes_of(const Array& array) { return array.base().get_sub_region(array.offset(), array.nbytes()); }

Buffer elements_of(const Array& array, std::size_t first, std::size_t size) {
    const std::size_t itemsize = array.dtype().itemsize();
    return array.base().get_sub_region(array.offset() + first * itemsize, size * itemsize);
}

Array temporary(const Queue& queue, const DType& dtype, std::size_t size) {
    return Array::empty(queue.device(), {size}, dtype);
}

void copy_after(const Queue& queue, const Buffer& target, const Queue& source_queue, const Buffer& source) {
    if (target.size() == 0) return;
    if (!(source_queue == queue)) queue.wait_for(source_queue.record_event());
    target.set(queue, source, true);
}

namespace {

std::atomic<std::size_t> forced_chunk_bytes{0};

// 16 MiB chunks: measured on two H200s through NVIDIA's OpenCL (64 MiB, 2026-11-29, one call),
// busbw over the duplex page-locked bound at 16 / 4 MiB: all_reduce 0.73 / 0.72, all_gather 0.82 /
// 0.70, reduce_scatter 0.59 / 0.53, broadcast 0.74 / 0.73 (the host ordering the uploads instead,
// KJARNI_RELAY_HOST_WAITS=1: 0.50, 0.55, 0.46, 0.71); four chunks per segment still overlap the
// two directions. The staging relay between contexts keeps 4 MiB (equal there). 64 MiB segments: a call
// holds at most (ranks + 1) x 64 MiB of page-locked memory, and a segment is long beside the
// pipeline's fill and drain at its ends.
// KJARNI_RELAY_CHUNK_MIB (a whole number of MiB up to 64, read once; bad values are ignored)
// replaces the chunk, for measurements (bench/collectives_bench.cpp); the staging's relays read it
// too (src/staging/transfer_stager.hpp).
constexpr std::size_t default_segment = std::size_t{64} << 20;

std::size_t default_chunk() {
    static const std::size_t bytes = relay_chunk_setting(std::size_t{16} << 20, default_segment >> 20);
    return bytes;
}

}  // namespace

bool relays_between(const std::vector<BoundDevice>& devices) {
    if (forced_chunk_bytes.load() != 0) return devices.size() > 1;
    if (devices.size() < 2 || devices.front().context().api().id() != ApiId::opencl()) return false;
    return !std::all_of(devices.begin(), devices.end(),
                        [](const BoundDevice& device) { return device.device().properties().unified_memory; });
}

RelaySizes relay_sizes() {
    const std::size_t forced = forced_chunk_bytes.load();
    if (forced != 0) return {forced, 7 * forced + 3};
    return {default_chunk(), default_segment};
}

bool relay_host_waits() {
    static const bool on = [] {
        const char* text = std::getenv("KJARNI_RELAY_HOST_WAITS");
        return text != nullptr && std::string_view(text) == "1";
    }();
    return on;
}

void relay_through_the_host_for_testing(std::size_t chunk_bytes) { forced_chunk_bytes = chunk_bytes; }

}  // namespace kjarni::detail
