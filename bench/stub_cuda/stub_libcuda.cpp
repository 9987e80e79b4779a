// A stand-in libcuda.so.1 for counting kjarni's own host instructions per CUDA launch on a machine
// without a GPU (scripts/count-launch-instructions.sh): a development tool, never a test, and not
// built by the default build (bench/stub_cuda/build.sh builds it).
//
// It pretends to be one sm_90 device (H100-like attribute values) and answers every entry point of
// kjarni's driver table (src/backend/cuda/cuda_driver.hpp, through cuGetProcAddress_v2) plus the
// exported functions the benchmarks' raw baseline dlsyms (bench/raw_cuda.hpp). What it implements
// it implements correctly but minimally: device memory is host memory behind the same addresses,
// copies and fills happen at once, streams and events are always complete, modules are read only
// for their kernels' names and parameters (a cubin's EIATTR_KPARAM_INFO records, or PTX's .param
// lines) and a launch runs nothing. Every other entry point answers CUDA_ERROR_NOT_SUPPORTED and
// says so on stderr once, so that a missing piece shows instead of passing unnoticed.

#include <cuda.h>
#include <cudaTypedefs.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backend/cuda/cuda_driver.hpp"  // only for its tables of entry points

namespace {

// ---- Handles ----------------------------------------------------------------------------------

struct StubFunction {
    std::string name;
    struct Param {
        std::size_t offset = 0;
        std::size_t size = 0;
    };
    std::vector<Param> params;
    bool params_known = false;
};

struct StubModule {
    std::vector<std::unique_ptr<StubFunction>> functions;
};

struct StubStream {
    int priority = 0;
};
struct StubEvent {
    unsigned flags = 0;
};

// The one device's primary context, and the thread's current one.
char primary_context_object;
CUcontext const primary_context = reinterpret_cast<CUcontext>(&primary_context_object);
thread_local CUcontext current_context = nullptr;

template <class Handle, class Object>
Handle handle_of(Object* object) {
    return reinterpret_cast<Handle>(object);
}
template <class Object, class Handle>
Object* object_of(Handle handle) {
    return reinterpret_cast<Object*>(handle);
}

// Device allocations (host memory), by address, for cuMemGetAddressRange and cuPointerGetAttributes.
std::mutex allocations_mutex;
std::map<CUdeviceptr, std::size_t> allocations;

CUdeviceptr allocate(std::size_t bytes) {
    void* memory = std::calloc(bytes != 0 ? bytes : 1, 1);
    if (memory == nullptr) return 0;
    const std::lock_guard lock(allocations_mutex);
    allocations.emplace(reinterpret_cast<CUdeviceptr>(memory), bytes);
    return reinterpret_cast<CUdeviceptr>(memory);
}

CUresult release(CUdeviceptr pointer) {
    const std::lock_guard lock(allocations_mutex);
    const auto found = allocations.find(pointer);
    if (found == allocations.end()) return CUDA_ERROR_INVALID_VALUE;
    allocations.erase(found);
    std::free(reinterpret_cast<void*>(pointer));
    return CUDA_SUCCESS;
}

// ---- Reading a module's kernels -----------------------------------------------------------------

template <class T>
bool read(std::string_view image, std::uint64_t offset, T& value) {
    if (offset > image.size() || sizeof(T) > image.size() - offset) return false;
    std::memcpy(&value, image.data() + offset, sizeof value);
    return true;
}

/// The parameters a `.nv.info.<kernel>` section declares: its EIATTR_KPARAM_INFO records (format
/// 0x04, attribute 0x17, 12 bytes: u32 index, u16 ordinal, u16 offset, u32 flags, size in bits 18-31).
bool read_info_section(std::string_view section, StubFunction& function) {
    std::map<std::uint16_t, StubFunction::Param> by_ordinal;
    std::uint64_t at = 0;
    while (at + 4 <= section.size()) {
        const auto format = static_cast<std::uint8_t>(section[at]);
        const auto attribute = static_cast<std::uint8_t>(section[at + 1]);
        if (format == 0x01 || format == 0x02 || format == 0x03) {
            at += 4;
            continue;
        }
        if (format != 0x04) return false;
        std::uint16_t length = 0;
        if (!read(section, at + 2, length)) return false;
        if (attribute == 0x17 && length == 12) {
            std::uint16_t ordinal = 0, offset = 0;
            std::uint32_t flags = 0;
            if (!read(section, at + 8, ordinal) || !read(section, at + 10, offset) || !read(section, at + 12, flags)) {
                return false;
            }
            by_ordinal[ordinal] = StubFunction::Param{offset, (flags >> 18) & 0x3fff};
        }
        at += 4 + std::uint64_t{length};
    }
    for (const auto& [ordinal, param] : by_ordinal) {
        if (ordinal != function.params.size()) return false;
        function.params.push_back(param);
    }
    function.params_known = true;
    return true;
}

/// The kernels of a cubin: one per `.nv.info.<name>` section (a kernel without one: `.text.<name>`).
void read_cubin(std::string_view image, StubModule& module) {
    std::uint64_t shoff = 0;
    std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
    if (!read(image, 40, shoff) || !read(image, 58, shentsize) || !read(image, 60, shnum) ||
        !read(image, 62, shstrndx) || shentsize < 64 || shstrndx >= shnum) {
        return;
    }
    const auto header = [&](std::uint16_t index) { return shoff + std::uint64_t{index} * shentsize; };
    std::uint64_t names_offset = 0, names_size = 0;
    if (!read(image, header(shstrndx) + 24, names_offset) || !read(image, header(shstrndx) + 32, names_size) ||
        names_offset > image.size() || names_size > image.size() - names_offset) {
        return;
    }
    const std::string_view names = image.substr(names_offset, names_size);
    std::map<std::string, std::string_view, std::less<>> infos;
    std::vector<std::string> texts;
    for (std::uint16_t i = 0; i < shnum; ++i) {
        std::uint32_t name_index = 0;
        std::uint64_t offset = 0, size = 0;
        if (!read(image, header(i), name_index) || !read(image, header(i) + 24, offset) ||
            !read(image, header(i) + 32, size) || name_index >= names.size()) {
            continue;
        }
        const std::string_view name(names.data() + name_index);
        if (name.starts_with(".nv.info.") && offset <= image.size() && size <= image.size() - offset) {
            infos.emplace(std::string(name.substr(9)), image.substr(offset, size));
        } else if (name.starts_with(".text.")) {
            texts.emplace_back(name.substr(6));
        }
    }
    for (const auto& [name, section] : infos) {
        auto function = std::make_unique<StubFunction>();
        function->name = name;
        if (!read_info_section(section, *function)) function->params.clear();
        module.functions.push_back(std::move(function));
    }
    for (const std::string& name : texts) {
        if (infos.contains(name)) continue;
        auto function = std::make_unique<StubFunction>();
        function->name = name;
        function->params_known = true;  // no info section: no parameters
        module.functions.push_back(std::move(function));
    }
}

/// The bytes of one PTX parameter declaration (".param .u64 x", ".param .align 8 .b8 s[24]").
std::size_t ptx_param_size(std::string_view declaration) {
    std::size_t bits = 0;
    for (std::string_view type : {".u", ".s", ".b", ".f"}) {
        for (std::size_t at = declaration.find(type); at != std::string_view::npos;
             at = declaration.find(type, at + 1)) {
            const std::size_t digits = at + 2;
            if (digits < declaration.size() && declaration[digits] >= '0' && declaration[digits] <= '9') {
                bits = std::strtoul(std::string(declaration.substr(digits, 3)).c_str(), nullptr, 10);
            }
        }
    }
    std::size_t count = 1;
    if (const std::size_t open = declaration.find('['); open != std::string_view::npos) {
        count = std::strtoul(std::string(declaration.substr(open + 1, 12)).c_str(), nullptr, 10);
    }
    return bits / 8 * count;
}

/// The kernels of PTX text: `.entry name(\n .param ... ,\n .param ...\n)`.
void read_ptx(std::string_view ptx, StubModule& module) {
    for (std::size_t at = ptx.find(".entry"); at != std::string_view::npos; at = ptx.find(".entry", at + 1)) {
        std::size_t pos = at + 6;
        while (pos < ptx.size() && (ptx[pos] == ' ' || ptx[pos] == '\t')) ++pos;
        const std::size_t begin = pos;
        while (pos < ptx.size() &&
               (std::isalnum(static_cast<unsigned char>(ptx[pos])) || ptx[pos] == '_' || ptx[pos] == '$')) {
            ++pos;
        }
        if (pos == begin) continue;
        auto function = std::make_unique<StubFunction>();
        function->name = std::string(ptx.substr(begin, pos - begin));
        function->params_known = true;
        while (pos < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[pos]))) ++pos;
        if (pos < ptx.size() && ptx[pos] == '(') {
            const std::size_t close = ptx.find(')', pos);
            std::string_view list = ptx.substr(pos + 1, close == std::string_view::npos ? 0 : close - pos - 1);
            std::size_t offset = 0;
            while (!list.empty()) {
                const std::size_t comma = list.find(',');
                const std::size_t size = ptx_param_size(list.substr(0, comma));
                offset = (offset + size - 1) / (size != 0 ? size : 1) * (size != 0 ? size : 1);
                function->params.push_back({offset, size});
                offset += size;
                list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
            }
        }
        module.functions.push_back(std::move(function));
    }
}

/// A module of `image` (a cubin or NUL-terminated PTX; a fatbin is read as having no kernels).
CUresult load_module(CUmodule* module, const void* image) {
    if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
    auto loaded = std::make_unique<StubModule>();
    const auto* bytes = static_cast<const unsigned char*>(image);
    constexpr unsigned char fatbin_magic[4] = {0x50, 0xed, 0x55, 0xba};
    if (std::memcmp(bytes, fatbin_magic, 4) == 0) {
        // A fatbin: not read (NVRTC gives kjarni cubins or PTX).
    } else if (std::memcmp(bytes,
                           "\x7f"
                           "ELF",
                           4) == 0) {
        std::uint64_t shoff = 0;
        std::uint16_t shentsize = 0, shnum = 0;
        std::memcpy(&shoff, bytes + 40, sizeof shoff);
        std::memcpy(&shentsize, bytes + 58, sizeof shentsize);
        std::memcpy(&shnum, bytes + 60, sizeof shnum);
        // The section headers end the image as NVRTC writes it (cuModuleLoadData takes no size).
        read_cubin(std::string_view(static_cast<const char*>(image), shoff + std::uint64_t{shentsize} * shnum),
                   *loaded);
    } else {
        read_ptx(std::string_view(static_cast<const char*>(image)), *loaded);
    }
    *module = handle_of<CUmodule>(loaded.release());
    return CUDA_SUCCESS;
}

// ---- The entry points -------------------------------------------------------------------------

// The names of kjarni's table: each resolves to impl::<member> where that is defined below, else
// to a refusal (qualified lookup in impl finds the tag only where impl declares no such function).
namespace unsupported {
struct Tag {};
#define KJARNI_STUB_TAG(member, abi, exported) [[maybe_unused]] constexpr Tag member{};
KJARNI_CUDA_DRIVER_FUNCTIONS(KJARNI_STUB_TAG)
KJARNI_CUDA_DRIVER_LAYER_FUNCTIONS(KJARNI_STUB_TAG)
KJARNI_CUDA_OPTIONAL_DRIVER_FUNCTIONS(KJARNI_STUB_TAG)
KJARNI_CUDA_GRAPH_DRIVER_FUNCTIONS(KJARNI_STUB_TAG)
#undef KJARNI_STUB_TAG
}  // namespace unsupported

namespace impl {
using namespace unsupported;

CUresult Init(unsigned int flags) { return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult DriverGetVersion(int* version) {
    if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *version = CUDA_VERSION;
    return CUDA_SUCCESS;
}

const char* error_text(CUresult error, bool name) {
    switch (error) {
    case CUDA_SUCCESS: return name ? "CUDA_SUCCESS" : "no error";
    case CUDA_ERROR_INVALID_VALUE: return name ? "CUDA_ERROR_INVALID_VALUE" : "invalid argument";
    case CUDA_ERROR_OUT_OF_MEMORY: return name ? "CUDA_ERROR_OUT_OF_MEMORY" : "out of memory";
    case CUDA_ERROR_INVALID_DEVICE: return name ? "CUDA_ERROR_INVALID_DEVICE" : "invalid device ordinal";
    case CUDA_ERROR_INVALID_HANDLE: return name ? "CUDA_ERROR_INVALID_HANDLE" : "invalid resource handle";
    case CUDA_ERROR_NOT_FOUND: return name ? "CUDA_ERROR_NOT_FOUND" : "named symbol not found";
    case CUDA_ERROR_NOT_SUPPORTED: return name ? "CUDA_ERROR_NOT_SUPPORTED" : "operation not supported (stub)";
    default: return nullptr;
    }
}
CUresult GetErrorName(CUresult error, const char** text) {
    if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *text = error_text(error, true);
    return *text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult GetErrorString(CUresult error, const char** text) {
    if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *text = error_text(error, false);
    return *text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The device: one, ordinal 0, H100-like.
CUresult DeviceGetCount(int* count) {
    if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}
CUresult DeviceGet(CUdevice* device, int ordinal) {
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}
// A text answer about the device, cut to the caller's `length` bytes as the driver cuts it.
CUresult device_text(char* out, int length, CUdevice device, const char* text) {
    if (out == nullptr || length <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
    std::snprintf(out, static_cast<std::size_t>(length), "%s", text);
    return CUDA_SUCCESS;
}
CUresult DeviceGetName(char* name, int length, CUdevice device) {
    return device_text(name, length, device, "Stub H100 (kjarni stub libcuda)");
}
CUresult DeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
    if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 49152; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: *value = 512; break;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: *value = CU_COMPUTEMODE_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: *value = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: *value = 131072; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: *value = 16384; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: *value = 16384; break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: *value = 16384; break;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: *value = 512; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = 0x65; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 5120; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 52428800; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *value = 3; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = 233472; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 232448; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: *value = 1; break;
    default: return CUDA_ERROR_INVALID_VALUE;  // as a driver older than the headers answers
    }
    return CUDA_SUCCESS;
}
CUresult DeviceTotalMem(std::size_t* bytes, CUdevice device) {
    if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = std::size_t{80} << 30;
    return CUDA_SUCCESS;
}
CUresult DeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
    return device_text(bus_id, length, device, "0000:65:00.0");
}
CUresult DeviceCanAccessPeer(int* can, CUdevice device, CUdevice peer) {
    if (can == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (device != 0 || peer != 0) return CUDA_ERROR_INVALID_DEVICE;
    *can = 0;
    return CUDA_SUCCESS;
}

// Contexts: the primary one only.
CUresult DevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
    if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
    *context = primary_context;
    return CUDA_SUCCESS;
}
CUresult DevicePrimaryCtxRelease(CUdevice device) { return device == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
CUresult CtxGetCurrent(CUcontext* context) {
    if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *context = current_context;
    return CUDA_SUCCESS;
}
CUresult CtxSetCurrent(CUcontext context) {
    if (context != nullptr && context != primary_context) return CUDA_ERROR_INVALID_CONTEXT;
    current_context = context;
    return CUDA_SUCCESS;
}
CUresult CtxGetDevice(CUdevice* device) {
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (current_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    *device = 0;
    return CUDA_SUCCESS;
}
CUresult CtxSynchronize() { return current_context != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }
CUresult CtxGetStreamPriorityRange(int* least, int* greatest) {
    if (least != nullptr) *least = 0;
    if (greatest != nullptr) *greatest = -5;
    return CUDA_SUCCESS;
}
CUresult CtxSetLimit(CUlimit, std::size_t) { return CUDA_SUCCESS; }
CUresult CtxGetLimit(std::size_t* value, CUlimit) {
    if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *value = 1024;
    return CUDA_SUCCESS;
}

// Streams and events: always complete.
CUresult StreamCreateWithPriority(CUstream* stream, unsigned int, int priority) {
    if (stream == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (current_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    *stream = handle_of<CUstream>(new StubStream{priority});
    return CUDA_SUCCESS;
}
CUresult StreamCreate(CUstream* stream, unsigned int flags) { return StreamCreateWithPriority(stream, flags, 0); }
CUresult StreamDestroy(CUstream stream) {
    delete object_of<StubStream>(stream);
    return CUDA_SUCCESS;
}
CUresult StreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult StreamQuery(CUstream) { return CUDA_SUCCESS; }
CUresult StreamWaitEvent(CUstream, CUevent event, unsigned int) {
    return event != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult EventCreate(CUevent* event, unsigned int flags) {
    if (event == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (current_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    *event = handle_of<CUevent>(new StubEvent{flags});
    return CUDA_SUCCESS;
}
CUresult EventDestroy(CUevent event) {
    delete object_of<StubEvent>(event);
    return CUDA_SUCCESS;
}
CUresult EventRecord(CUevent event, CUstream) { return event != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
CUresult EventSynchronize(CUevent event) { return event != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
CUresult EventQuery(CUevent event) { return event != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
CUresult EventElapsedTime(float* milliseconds, CUevent start, CUevent end) {
    if (milliseconds == nullptr || start == nullptr || end == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    *milliseconds = 0.001f;
    return CUDA_SUCCESS;
}

// Memory: host memory behind the same addresses; copies and fills at once.
CUresult MemAlloc(CUdeviceptr* pointer, std::size_t bytes) {
    if (pointer == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    *pointer = allocate(bytes);
    return *pointer != 0 ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult MemFree(CUdeviceptr pointer) { return pointer == 0 ? CUDA_SUCCESS : release(pointer); }
CUresult MemAllocManaged(CUdeviceptr* pointer, std::size_t bytes, unsigned int) { return MemAlloc(pointer, bytes); }
CUresult MemGetInfo(std::size_t* free, std::size_t* total) {
    if (free == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *total = std::size_t{80} << 30;
    *free = *total - (std::size_t{1} << 30);
    return CUDA_SUCCESS;
}
CUresult MemGetAddressRange(CUdeviceptr* base, std::size_t* size, CUdeviceptr pointer) {
    const std::lock_guard lock(allocations_mutex);
    auto found = allocations.upper_bound(pointer);
    if (found == allocations.begin()) return CUDA_ERROR_NOT_FOUND;
    --found;
    if (pointer >= found->first + found->second) return CUDA_ERROR_NOT_FOUND;
    if (base != nullptr) *base = found->first;
    if (size != nullptr) *size = found->second;
    return CUDA_SUCCESS;
}
CUresult MemHostAlloc(void** pointer, std::size_t bytes, unsigned int) {
    if (pointer == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pointer = std::calloc(bytes != 0 ? bytes : 1, 1);
    return *pointer != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult MemFreeHost(void* pointer) {
    std::free(pointer);
    return CUDA_SUCCESS;
}
CUresult MemHostGetDevicePointer(CUdeviceptr* device, void* host, unsigned int) {
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *device = reinterpret_cast<CUdeviceptr>(host);
    return CUDA_SUCCESS;
}
CUresult MemHostRegister(void*, std::size_t, unsigned int) { return CUDA_SUCCESS; }
CUresult MemHostUnregister(void*) { return CUDA_SUCCESS; }
CUresult MemcpyHtoDAsync(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream) {
    std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    return CUDA_SUCCESS;
}
CUresult MemcpyDtoHAsync(void* dst, CUdeviceptr src, std::size_t bytes, CUstream) {
    std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    return CUDA_SUCCESS;
}
CUresult MemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream) {
    std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
    return CUDA_SUCCESS;
}
CUresult MemcpyPeerAsync(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext, std::size_t bytes, CUstream) {
    return MemcpyDtoDAsync(dst, src, bytes, nullptr);
}
template <class T>
CUresult fill(CUdeviceptr dst, T value, std::size_t count) {
    T* at = reinterpret_cast<T*>(dst);
    for (std::size_t i = 0; i < count; ++i) at[i] = value;
    return CUDA_SUCCESS;
}
CUresult MemsetD8Async(CUdeviceptr dst, unsigned char value, std::size_t count, CUstream) {
    return fill(dst, value, count);
}
CUresult MemsetD16Async(CUdeviceptr dst, unsigned short value, std::size_t count, CUstream) {
    return fill(dst, value, count);
}
CUresult MemsetD32Async(CUdeviceptr dst, unsigned int value, std::size_t count, CUstream) {
    return fill(dst, value, count);
}
CUresult MemsetD2D32Async(CUdeviceptr dst, std::size_t pitch, unsigned int value, std::size_t width, std::size_t height,
                          CUstream) {
    for (std::size_t row = 0; row < height; ++row) fill(dst + row * pitch, value, width);
    return CUDA_SUCCESS;
}

// Modules and functions.
CUresult ModuleLoadData(CUmodule* module, const void* image) {
    if (current_context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    return load_module(module, image);
}
CUresult ModuleLoadDataEx(CUmodule* module, const void* image, unsigned int count, CUjit_option* options,
                          void** values) {
    // The logs the caller asked for stay empty.
    for (unsigned int i = 0; i < count; ++i) {
        if ((options[i] == CU_JIT_INFO_LOG_BUFFER || options[i] == CU_JIT_ERROR_LOG_BUFFER) && values[i] != nullptr) {
            static_cast<char*>(values[i])[0] = '\0';
        }
    }
    return ModuleLoadData(module, image);
}
CUresult ModuleUnload(CUmodule module) {
    delete object_of<StubModule>(module);
    return CUDA_SUCCESS;
}
CUresult ModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    if (function == nullptr || module == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    for (const auto& candidate : object_of<StubModule>(module)->functions) {
        if (candidate->name == name) {
            *function = handle_of<CUfunction>(candidate.get());
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}
CUresult ModuleGetGlobal(CUdeviceptr*, std::size_t*, CUmodule module, const char* name) {
    if (module == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_NOT_FOUND;  // the stub reads no globals from the image
}
CUresult ModuleGetFunctionCount(unsigned int* count, CUmodule module) {
    if (count == nullptr || module == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *count = static_cast<unsigned int>(object_of<StubModule>(module)->functions.size());
    return CUDA_SUCCESS;
}
CUresult ModuleEnumerateFunctions(CUfunction* functions, unsigned int count, CUmodule module) {
    if (functions == nullptr || module == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto& all = object_of<StubModule>(module)->functions;
    for (unsigned int i = 0; i < count && i < all.size(); ++i) functions[i] = handle_of<CUfunction>(all[i].get());
    return CUDA_SUCCESS;
}
CUresult FuncGetName(const char** name, CUfunction function) {
    if (name == nullptr || function == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *name = object_of<StubFunction>(function)->name.c_str();
    return CUDA_SUCCESS;
}
CUresult FuncGetParamInfo(CUfunction function, std::size_t index, std::size_t* offset, std::size_t* size) {
    if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    const StubFunction& f = *object_of<StubFunction>(function);
    if (!f.params_known || index >= f.params.size()) return CUDA_ERROR_INVALID_VALUE;
    if (offset != nullptr) *offset = f.params[index].offset;
    if (size != nullptr) *size = f.params[index].size;
    return CUDA_SUCCESS;
}
CUresult FuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
    if (value == nullptr || function == nullptr) return CUDA_ERROR_INVALID_VALUE;
    switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = 0; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = 0; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 16; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *value = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = 90; break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = 49152; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = -1; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
CUresult FuncSetAttribute(CUfunction function, CUfunction_attribute, int) {
    return function != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult FuncSetCacheConfig(CUfunction function, CUfunc_cache) {
    return function != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
// The launch: runs nothing, only counts (the cost both kjarni and the raw baseline share is this
// function's). The count goes to stderr at exit where KJARNI_STUB_CUDA_LAUNCHES is set, for the
// instruction counts per launch of scripts/count-launch-instructions.sh.
std::atomic<unsigned long> launches{0};
struct LaunchReport {
    ~LaunchReport() {
        if (std::getenv("KJARNI_STUB_CUDA_LAUNCHES") != nullptr) {
            std::fprintf(stderr, "stub libcuda: %lu launches\n", launches.load());
        }
    }
} launch_report;
CUresult LaunchKernel(CUfunction function, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                      unsigned int, unsigned int, CUstream, void**, void**) {
    launches.fetch_add(1, std::memory_order_relaxed);
    return function != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult ProfilerStart() { return CUDA_SUCCESS; }
CUresult ProfilerStop() { return CUDA_SUCCESS; }

}  // namespace impl

/// An entry point the stub lacks: CUDA_ERROR_NOT_SUPPORTED, and its name on stderr (once).
template <class Fn, const char* Name>
struct Refuse;
template <class... Args, const char* Name>
struct Refuse<CUresult(CUDAAPI*)(Args...), Name> {
    static CUresult CUDAAPI call(Args...) {
        static std::atomic<bool> said{false};
        if (!said.exchange(true)) std::fprintf(stderr, "stub libcuda: %s is not implemented\n", Name);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
};

template <class Fn, const char* Name>
void* entry_point(Fn implemented) {
    return reinterpret_cast<void*>(implemented);
}
template <class Fn, const char* Name>
void* entry_point(unsupported::Tag) {
    return reinterpret_cast<void*>(&Refuse<Fn, Name>::call);
}

struct Entry {
    const char* name;  // the base name cuGetProcAddress takes
    int abi;           // the CUDA version whose ABI the function has
    void* function;
};

namespace names {
#define KJARNI_STUB_NAME(member, abi, exported) constexpr char member[] = "cu" #member;
KJARNI_CUDA_DRIVER_FUNCTIONS(KJARNI_STUB_NAME)
KJARNI_CUDA_DRIVER_LAYER_FUNCTIONS(KJARNI_STUB_NAME)
KJARNI_CUDA_OPTIONAL_DRIVER_FUNCTIONS(KJARNI_STUB_NAME)
KJARNI_CUDA_GRAPH_DRIVER_FUNCTIONS(KJARNI_STUB_NAME)
#undef KJARNI_STUB_NAME
}  // namespace names

const std::vector<Entry>& entries() {
#define KJARNI_STUB_ENTRY(member, abi, exported) \
    Entry{names::member, abi, entry_point<PFN_cu##member##_v##abi, names::member>(impl::member)},
    static const std::vector<Entry> table = {KJARNI_CUDA_DRIVER_FUNCTIONS(KJARNI_STUB_ENTRY)
                                                 KJARNI_CUDA_DRIVER_LAYER_FUNCTIONS(KJARNI_STUB_ENTRY)
                                                     KJARNI_CUDA_OPTIONAL_DRIVER_FUNCTIONS(KJARNI_STUB_ENTRY)
                                                         KJARNI_CUDA_GRAPH_DRIVER_FUNCTIONS(KJARNI_STUB_ENTRY)};
#undef KJARNI_STUB_ENTRY
    return table;
}

}  // namespace

// ---- Exported symbols -------------------------------------------------------------------------

extern "C" {

/// The entry points of kjarni's table by base name, for an ABI at least as new as the stub's.
CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** function, int cuda_version, cuuint64_t,
                                     CUdriverProcAddressQueryResult* status) {
    if (symbol == nullptr || function == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *function = nullptr;
    for (const Entry& entry : entries()) {
        if (std::strcmp(entry.name, symbol) != 0) continue;
        if (cuda_version < entry.abi) {
            if (status != nullptr) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
            return CUDA_ERROR_NOT_FOUND;
        }
        *function = entry.function;
        if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
    }
    if (status != nullptr) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

// kjarni finds this one by its exported name only (cuda_driver.hpp).
__attribute__((visibility("default"))) CUresult CUDAAPI cuFuncGetParamCount(CUfunction function, std::size_t* count) {
    if (function == nullptr || count == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const StubFunction& f = *object_of<StubFunction>(function);
    if (!f.params_known) return CUDA_ERROR_NOT_SUPPORTED;
    *count = f.params.size();
    return CUDA_SUCCESS;
}

// What the raw baseline dlsyms (bench/raw_cuda.hpp).
CUresult CUDAAPI cuCtxSetCurrent(CUcontext context) { return impl::CtxSetCurrent(context); }
CUresult CUDAAPI cuStreamSynchronize(CUstream stream) { return impl::StreamSynchronize(stream); }
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                                unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void** params,
                                void** extra) {
    return impl::LaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr* pointer, std::size_t bytes) { return impl::MemAlloc(pointer, bytes); }
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr pointer) { return impl::MemFree(pointer); }
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr* pointer, std::size_t bytes, CUstream) {
    return impl::MemAlloc(pointer, bytes);
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr pointer, CUstream) { return impl::MemFree(pointer); }
CUresult CUDAAPI cuMemHostAlloc(void** pointer, std::size_t bytes, unsigned int flags) {
    return impl::MemHostAlloc(pointer, bytes, flags);
}
CUresult CUDAAPI cuMemFreeHost(void* pointer) { return impl::MemFreeHost(pointer); }
CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, std::size_t bytes) {
    return impl::MemcpyHtoDAsync(dst, src, bytes, nullptr);
}
CUresult CUDAAPI cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t bytes) {
    return impl::MemcpyDtoHAsync(dst, src, bytes, nullptr);
}
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                                   std::size_t bytes, CUstream stream) {
    return impl::MemcpyPeerAsync(dst, dst_context, src, src_context, bytes, stream);
}
CUresult CUDAAPI cuEventCreate(CUevent* event, unsigned int flags) { return impl::EventCreate(event, flags); }
CUresult CUDAAPI cuEventRecord(CUevent event, CUstream stream) { return impl::EventRecord(event, stream); }
CUresult CUDAAPI cuEventDestroy_v2(CUevent event) { return impl::EventDestroy(event); }
CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) { return impl::ModuleLoadData(module, image); }
CUresult CUDAAPI cuModuleUnload(CUmodule module) { return impl::ModuleUnload(module); }

}  // extern "C"
