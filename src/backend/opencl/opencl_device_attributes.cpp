#include "backend/opencl/opencl_device_attributes.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <span>

#include "backend/opencl/opencl_info.hpp"
#include "backend/opencl/opencl_vendor_queries.hpp"

namespace kjarni::backend::opencl {

namespace {

// How to read a value: its C type decides the decoding.
enum class Kind { u32, u64, size, sizes, string };

struct AttributeSpec {
    cl_device_info code;
    const char* name;
    Kind kind;
};

using namespace vendor;

// clang-format off
#define KJARNI_ATTR(code, kind) {code, #code, Kind::kind}
// clang-format on
constexpr AttributeSpec standard_attributes[] = {
    KJARNI_ATTR(CL_DEVICE_TYPE, u64),
    KJARNI_ATTR(CL_DEVICE_VENDOR_ID, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_COMPUTE_UNITS, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_WORK_ITEM_SIZES, sizes),
    KJARNI_ATTR(CL_DEVICE_MAX_WORK_GROUP_SIZE, size),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, u32),
    KJARNI_ATTR(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, u32),
    KJARNI_ATTR(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, u32),
    KJARNI_ATTR(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, u32),
    KJARNI_ATTR(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, u32),
    KJARNI_ATTR(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, u32),
    KJARNI_ATTR(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, u32),
    KJARNI_ATTR(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_CLOCK_FREQUENCY, u32),
    KJARNI_ATTR(CL_DEVICE_ADDRESS_BITS, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_MEM_ALLOC_SIZE, u64),
    KJARNI_ATTR(CL_DEVICE_IMAGE_SUPPORT, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_READ_IMAGE_ARGS, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, u32),
    KJARNI_ATTR(CL_DEVICE_IMAGE2D_MAX_WIDTH, size),
    KJARNI_ATTR(CL_DEVICE_IMAGE2D_MAX_HEIGHT, size),
    KJARNI_ATTR(CL_DEVICE_IMAGE3D_MAX_WIDTH, size),
    KJARNI_ATTR(CL_DEVICE_IMAGE3D_MAX_HEIGHT, size),
    KJARNI_ATTR(CL_DEVICE_IMAGE3D_MAX_DEPTH, size),
    KJARNI_ATTR(CL_DEVICE_MAX_SAMPLERS, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_PARAMETER_SIZE, size),
    KJARNI_ATTR(CL_DEVICE_MEM_BASE_ADDR_ALIGN, u32),
    KJARNI_ATTR(CL_DEVICE_SINGLE_FP_CONFIG, u64),
    KJARNI_ATTR(CL_DEVICE_DOUBLE_FP_CONFIG, u64),
    KJARNI_ATTR(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, u32),
    KJARNI_ATTR(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, u32),
    KJARNI_ATTR(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, u64),
    KJARNI_ATTR(CL_DEVICE_GLOBAL_MEM_SIZE, u64),
    KJARNI_ATTR(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, u64),
    KJARNI_ATTR(CL_DEVICE_MAX_CONSTANT_ARGS, u32),
    KJARNI_ATTR(CL_DEVICE_LOCAL_MEM_TYPE, u32),
    KJARNI_ATTR(CL_DEVICE_LOCAL_MEM_SIZE, u64),
    KJARNI_ATTR(CL_DEVICE_ERROR_CORRECTION_SUPPORT, u32),
    KJARNI_ATTR(CL_DEVICE_HOST_UNIFIED_MEMORY, u32),
    KJARNI_ATTR(CL_DEVICE_PROFILING_TIMER_RESOLUTION, size),
    KJARNI_ATTR(CL_DEVICE_ENDIAN_LITTLE, u32),
    KJARNI_ATTR(CL_DEVICE_AVAILABLE, u32),
    KJARNI_ATTR(CL_DEVICE_COMPILER_AVAILABLE, u32),
    KJARNI_ATTR(CL_DEVICE_LINKER_AVAILABLE, u32),
    KJARNI_ATTR(CL_DEVICE_EXECUTION_CAPABILITIES, u64),
    KJARNI_ATTR(CL_DEVICE_QUEUE_PROPERTIES, u64),
    KJARNI_ATTR(CL_DEVICE_NAME, string),
    KJARNI_ATTR(CL_DEVICE_VENDOR, string),
    KJARNI_ATTR(CL_DRIVER_VERSION, string),
    KJARNI_ATTR(CL_DEVICE_PROFILE, string),
    KJARNI_ATTR(CL_DEVICE_VERSION, string),
    KJARNI_ATTR(CL_DEVICE_OPENCL_C_VERSION, string),
    KJARNI_ATTR(CL_DEVICE_EXTENSIONS, string),
    KJARNI_ATTR(CL_DEVICE_BUILT_IN_KERNELS, string),
    KJARNI_ATTR(CL_DEVICE_PRINTF_BUFFER_SIZE, size),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, u32),
    KJARNI_ATTR(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, u32),
    KJARNI_ATTR(CL_DEVICE_REFERENCE_COUNT, u32),
    KJARNI_ATTR(CL_DEVICE_MAX_ON_DEVICE_QUEUES, u32),
    KJARNI_ATTR(CL_DEVICE_SVM_CAPABILITIES, u64),
    KJARNI_ATTR(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, size),
    KJARNI_ATTR(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, size),
    KJARNI_ATTR(CL_DEVICE_MAX_PIPE_ARGS, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, u32),
    KJARNI_ATTR(CL_DEVICE_IL_VERSION, string),
    KJARNI_ATTR(CL_DEVICE_MAX_NUM_SUB_GROUPS, u32),
    KJARNI_ATTR(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, u32),
    KJARNI_ATTR(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, u64),
    KJARNI_ATTR(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, u64),
    KJARNI_ATTR(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, u32),
    KJARNI_ATTR(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, u32),
    KJARNI_ATTR(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, u32),
    KJARNI_ATTR(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, size),
    KJARNI_ATTR(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, string),
};
#undef KJARNI_ATTR

constexpr AttributeSpec nvidia_attributes[] = {
    {nv_compute_capability_major, "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV", Kind::u32},
    {nv_compute_capability_minor, "CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV", Kind::u32},
    {nv_registers_per_block, "CL_DEVICE_REGISTERS_PER_BLOCK_NV", Kind::u32},
    {nv_warp_size, "CL_DEVICE_WARP_SIZE_NV", Kind::u32},
    {nv_gpu_overlap, "CL_DEVICE_GPU_OVERLAP_NV", Kind::u32},
    {nv_kernel_exec_timeout, "CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV", Kind::u32},
    {nv_integrated_memory, "CL_DEVICE_INTEGRATED_MEMORY_NV", Kind::u32},
    {nv_pci_bus_id, "CL_DEVICE_PCI_BUS_ID_NV", Kind::u32},
    {nv_pci_slot_id, "CL_DEVICE_PCI_SLOT_ID_NV", Kind::u32},
    {nv_pci_domain_id, "CL_DEVICE_PCI_DOMAIN_ID_NV", Kind::u32},
};

template <class T>
T read_scalar(const std::vector<unsigned char>& bytes) {
    T value{};
    std::memcpy(&value, bytes.data(), std::min(sizeof(T), bytes.size()));
    return value;
}

std::optional<DeviceAttribute::Value> decode(const std::vector<unsigned char>& bytes, Kind kind) {
    switch (kind) {
    case Kind::u32: return static_cast<std::int64_t>(read_scalar<cl_uint>(bytes));
    case Kind::u64: return static_cast<std::int64_t>(read_scalar<cl_ulong>(bytes));
    case Kind::size: return static_cast<std::int64_t>(read_scalar<std::size_t>(bytes));
    case Kind::sizes: {
        std::vector<std::int64_t> values(bytes.size() / sizeof(std::size_t));
        for (std::size_t i = 0; i < values.size(); ++i) {
            std::size_t v = 0;
            std::memcpy(&v, bytes.data() + i * sizeof(std::size_t), sizeof v);
            values[i] = static_cast<std::int64_t>(v);
        }
        return values;
    }
    case Kind::string: {
        std::string s(bytes.begin(), bytes.end());
        while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
        return s;
    }
    }
    return std::nullopt;
}

void query_all(cl_device_id device, std::span<const AttributeSpec> specs, std::vector<DeviceAttribute>& out) {
    std::vector<unsigned char> bytes;
    for (const AttributeSpec& spec : specs) {
        // Attributes newer than the device's OpenCL version fail with CL_INVALID_VALUE: skip them.
        if (!device_info_bytes(device, spec.code, bytes)) continue;
        if (auto value = decode(bytes, spec.kind)) out.push_back({spec.name, std::move(*value)});
    }
}

}  // namespace

std::vector<DeviceAttribute> query_device_attributes(cl_device_id device) {
    std::vector<DeviceAttribute> attributes;
    query_all(device, standard_attributes, attributes);
    if (device_info_string(device, CL_DEVICE_EXTENSIONS).find("cl_nv_device_attribute_query") != std::string::npos) {
        query_all(device, nvidia_attributes, attributes);
    }
    return attributes;
}

}  // namespace kjarni::backend::opencl
