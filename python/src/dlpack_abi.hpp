#pragma once
// The DLPack ABI (dmlc/dlpack, v1.1): the structs exchanged in "dltensor" and
// "dltensor_versioned" capsules. Written from the specification: a C ABI, the same in every
// producer and consumer.
#include <cstdint>

namespace kjarni::python::dlpack {

enum DeviceType : std::int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLCUDAManaged = 13 };
enum TypeCode : std::uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };

inline constexpr std::uint64_t flag_read_only = 1ull << 0;
inline constexpr std::uint64_t flag_is_copied = 1ull << 1;

struct Device {
    std::int32_t device_type;
    std::int32_t device_id;
};
struct DataType {
    std::uint8_t code;
    std::uint8_t bits;
    std::uint16_t lanes;
};
struct Tensor {
    void* data;
    Device device;
    std::int32_t ndim;
    DataType dtype;
    std::int64_t* shape;
    std::int64_t* strides;  // in elements; null means C-contiguous
    std::uint64_t byte_offset;
};
struct ManagedTensor {
    Tensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(ManagedTensor* self);
};
struct Version {
    std::uint32_t major;
    std::uint32_t minor;
};
struct ManagedTensorVersioned {
    Version version;
    void* manager_ctx;
    void (*deleter)(ManagedTensorVersioned* self);
    std::uint64_t flags;
    Tensor dl_tensor;
};

inline constexpr Version current_version{1, 1};

}  // namespace kjarni::python::dlpack
