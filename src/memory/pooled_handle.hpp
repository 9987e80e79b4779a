#pragma once
// The shared_ptr handed out for a pooled block, made without allocating: its control block lives
// in the block's own storage (PooledBlock::handle_storage), and the block returns to its pool when
// that control block is released.
//
// Why the return happens in deallocate rather than in a deleter: the deleter runs while the control
// block still exists (weak references, then its own destruction follow), so a block returned there
// could be handed out again, and its storage reused, by another thread while the old control block
// is being torn down. deallocate is the control block's very last step.
//
// A consequence: a weak_ptr to the handle keeps the block out of the pool (counted active) until it
// goes too. Nothing in kjarni keeps such weak_ptrs.

#include <cstddef>
#include <memory>
#include <new>

#include "memory/pool_core.hpp"

namespace kjarni::detail {

template <class T>
struct PooledHandleAllocator {
    using value_type = T;

    PooledBlock* block;

    explicit PooledHandleAllocator(PooledBlock* b) noexcept : block(b) {}
    template <class U>
    PooledHandleAllocator(const PooledHandleAllocator<U>& other) noexcept : block(other.block) {}  // NOLINT: rebinding

    T* allocate(std::size_t n) {
        if (fits(n)) return reinterpret_cast<T*>(block->handle_storage);
        // A standard library whose control block is larger than the room: allocate as usual.
        return static_cast<T*>(::operator new(n * sizeof(T)));
    }

    void deallocate(T* p, std::size_t n) noexcept {
        PooledBlock* returning = block;  // this allocator may live in the memory being freed
        if (!fits(n)) ::operator delete(p);
        returning->core->give_back(returning);
    }

    template <class U>
    friend bool operator==(const PooledHandleAllocator& a, const PooledHandleAllocator<U>& b) noexcept {
        return a.block == b.block;
    }

private:
    static constexpr bool fits(std::size_t n) noexcept {
        return n == 1 && sizeof(T) <= sizeof(PooledBlock::handle_storage) && alignof(T) <= alignof(std::max_align_t);
    }
};

/// Deleting does nothing: the block owns the object; releasing the handle returns the block.
struct KeepObject {
    template <class T>
    void operator()(T*) const noexcept {}
};

/// A handle to `object` (owned by `block`, which is handed out) that returns `block` to its pool
/// when the handle and all its copies are gone. If making it fails, the block goes back at once.
template <class T>
std::shared_ptr<T> make_pooled_handle(T* object, PooledBlock* block) {
    try {
        return std::shared_ptr<T>(object, KeepObject{}, PooledHandleAllocator<T>(block));
    } catch (...) {
        block->core->give_back(block);
        throw;
    }
}

}  // namespace kjarni::detail
