#include "backend/opencl/opencl_cpu_memory.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "kjarni/device_parameters.hpp"

namespace kjarni::backend::opencl {

namespace {

/// A huge page of x86-64 and of AArch64 with 4 KiB pages: the mapping starts on one, so that
/// every whole huge page of the buffer can be one.
constexpr std::size_t huge_page = std::size_t{2} << 20;

struct Mapping {
    void* start = nullptr;
    std::size_t length = 0;
};

void unmap(const Mapping& m) noexcept { static_cast<void>(munmap(m.start, m.length)); }

void CL_CALLBACK unmap_when_destroyed(cl_mem /*buffer*/, void* user_data) {
    const auto* mapping = static_cast<Mapping*>(user_data);
    unmap(*mapping);
    delete mapping;
}

/// `size` bytes (rounded up to huge pages) starting on a huge page, or a null start.
Mapping map_aligned(std::size_t size) {
    const std::size_t length = (size + huge_page - 1) / huge_page * huge_page;
    // One huge page more than asked for, the parts before the first boundary and after the
    // aligned stretch given back (anonymous mappings are only page-aligned).
    void* raw = mmap(nullptr, length + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return {};
    const auto first = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (first + huge_page - 1) / huge_page * huge_page;
    if (aligned > first) static_cast<void>(munmap(raw, aligned - first));
    const std::size_t tail = first + length + huge_page - (aligned + length);
    if (tail > 0) static_cast<void>(munmap(reinterpret_cast<void*>(aligned + length), tail));
    return Mapping{reinterpret_cast<void*>(aligned), length};
}

}  // namespace

bool cpu_mapped(const Device& device, std::size_t size, cl_mem_flags flags) {
    return device.params().type == DeviceType::cpu && size >= cpu_mapped_min_bytes &&
           (flags & CL_MEM_USE_HOST_PTR) == 0 && cl().clSetMemObjectDestructorCallback != nullptr;
}

Handle<cl_mem> create_cpu_mapped_buffer(cl_context context, std::size_t size, cl_mem_flags flags, const void* copy_from,
                                        cl_int& status) {
    status = CL_SUCCESS;
    const Mapping mapping = map_aligned(size);
    if (mapping.start == nullptr) return {};
    // Advice only: a kernel without transparent huge pages refuses it, and 4 KiB pages serve.
    static_cast<void>(madvise(mapping.start, mapping.length, MADV_HUGEPAGE));
    if (copy_from != nullptr && (flags & CL_MEM_COPY_HOST_PTR) != 0) std::memcpy(mapping.start, copy_from, size);
    const cl_mem_flags own =
        (flags & ~cl_mem_flags{CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR}) | CL_MEM_USE_HOST_PTR;
    Handle<cl_mem> buffer(cl().clCreateBuffer(context, own, size, mapping.start, &status));
    if (status != CL_SUCCESS) {
        unmap(mapping);
        return {};
    }
    auto owned = std::make_unique<Mapping>(mapping);
    if (cl().clSetMemObjectDestructorCallback(buffer.get(), unmap_when_destroyed, owned.get()) != CL_SUCCESS) {
        // Nothing was enqueued on the buffer yet: released here, it is gone before the unmap.
        buffer.reset();
        unmap(mapping);
        return {};
    }
    static_cast<void>(owned.release());  // the callback's now
    return buffer;
}

}  // namespace kjarni::backend::opencl
