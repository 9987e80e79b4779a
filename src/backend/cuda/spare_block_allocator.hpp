#pragma once
// An allocator for std::allocate_shared that keeps one freed block of its size aside and hands it
// to the next allocation. A loop that launches with an Event and drops it before the next launch
// then makes its events without malloc and free (about 130 instructions a launch on glibc): one
// atomic exchange each way instead.

#include <atomic>
#include <cstddef>
#include <memory>

namespace kjarni::backend::cuda {

template <class T>
class SpareBlockAllocator {
public:
    using value_type = T;

    SpareBlockAllocator() noexcept = default;
    template <class U>
    SpareBlockAllocator(const SpareBlockAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding

    T* allocate(std::size_t n) {
        if (n == 1) {
            if (void* block = spare().exchange(nullptr, std::memory_order_acquire)) return static_cast<T*>(block);
        }
        return std::allocator<T>{}.allocate(n);
    }
    void deallocate(T* block, std::size_t n) noexcept {
        if (n == 1) {
            void* empty = nullptr;
            if (spare().compare_exchange_strong(empty, block, std::memory_order_release, std::memory_order_relaxed)) {
                return;
            }
        }
        std::allocator<T>{}.deallocate(block, n);
    }

    template <class U>
    bool operator==(const SpareBlockAllocator<U>&) const noexcept {
        return true;  // stateless: any one frees what another allocated
    }

private:
    // One slot per block type, for the life of the process (a block left in it at exit is still
    // reachable from here, so leak checkers do not count it).
    static std::atomic<void*>& spare() noexcept {
        static std::atomic<void*> slot{nullptr};
        return slot;
    }
};

}  // namespace kjarni::backend::cuda
