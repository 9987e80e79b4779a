// The defaults of ContextPrograms (linking, relocatable units, PTX) and of Module's and Kernel's
// extras (program globals, cache preference, carveout, attributes), for backends that lack them:
// each throws UnsupportedError naming the backend (or, for modules and kernels, which do not know
// their API, what was asked for).

#include <string>

#include "backend/api.hpp"
#include "backend/program_service.hpp"
#include "backend/service_defaults.hpp"
#include "kjarni/error.hpp"

namespace kjarni::backend {

BuildOutput ContextPrograms::link(std::size_t, std::span<const LinkUnit>, const BuildOptions&) {
    backend_cannot(api(), "link separately compiled units");
}

std::vector<std::byte> ContextPrograms::compile_unit(std::size_t, const std::string&, const BuildOptions&) {
    backend_cannot(api(), "compile a unit for linking");
}

std::string ContextPrograms::ptx(std::size_t, const std::string&, const BuildOptions&) {
    backend_cannot(api(), "produce PTX");
}

std::shared_ptr<Buffer> Module::global_buffer(const std::string&) {
    throw UnsupportedError("this backend cannot address a program's global variables from the host");
}

void Kernel::set_cache_preference(CachePreference) {
    throw UnsupportedError("this backend cannot set a kernel's cache / shared memory preference");
}

void Kernel::set_shared_memory_carveout(int) {
    throw UnsupportedError("this backend cannot set a kernel's shared memory carveout");
}

void Kernel::set_attribute(KernelAttributeId attribute, int) {
    throw UnsupportedError("this backend cannot set the kernel attribute " + to_string(attribute));
}

}  // namespace kjarni::backend
