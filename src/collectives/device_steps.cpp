#include "collectives/device_steps.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>

#include "kjarni/elementwise.hpp"
#include "kjarni/expression.hpp"
#include "kjarni/operand.hpp"

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

std::atomic<std::size_t> forced_slot_bytes{0};

/// Whether a copy from `from` to `to` goes through the host (DeviceCopier says why).
bool stages(const BoundDevice& from, const BoundDevice& to) {
    if (from == to || from.context().api().id() != ApiId::opencl()) return false;
    return !(from.device().properties().unified_memory && to.device().properties().unified_memory);
}

}  // namespace

void stage_every_device_copy_for_testing(std::size_t slot_bytes) { forced_slot_bytes = slot_bytes; }

DeviceCopier::DeviceCopier()
    : stage_always_(forced_slot_bytes.load() != 0),
      slot_bytes_(stage_always_ ? forced_slot_bytes.load() : std::size_t{4} << 20) {}

DeviceCopier::Slot& DeviceCopier::next_slot(const Context& context) {
    if (slots_.size() < slot_count) {
        slots_.push_back({HostMemory::allocate(context, slot_bytes_), std::nullopt});
        return slots_.back();
    }
    Slot& slot = slots_[next_];
    next_ = (next_ + 1) % slot_count;
    return slot;
}

void DeviceCopier::copy(const Queue& queue, const Buffer& target, const Queue& source_queue, const Buffer& source) {
    if (target.size() == 0) return;
    const bool different = !(source.device() == target.device());
    if (!(stage_always_ && different) && !stages(source.device(), target.device())) {
        copy_after(queue, target, source_queue, source);
        return;
    }
    for (std::size_t done = 0; done < target.size(); done += slot_bytes_) {
        const std::size_t bytes = std::min(slot_bytes_, target.size() - done);
        Slot& slot = next_slot(queue.device().context());
        // The slot is read into only after its last write to a device has taken it out.
        if (slot.last_write) source_queue.wait_for(*slot.last_write);
        const std::span<std::byte> host = slot.memory.bytes().first(bytes);
        source.get_sub_region(done, bytes).get(source_queue, host, true);
        queue.wait_for(source_queue.record_event());
        target.get_sub_region(done, bytes).set(queue, std::span<const std::byte>(host), true);
        slot.last_write = queue.record_event();
    }
}

}  // namespace kjarni::detail
