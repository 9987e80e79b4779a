#include "program/inline_ptx.hpp"

#include "core/context_state.hpp"

#include "kjarni/device.hpp"
#include "kjarni/device_facts.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::detail {

bool takes_inline_ptx(const BoundDevice& device) {
    if (is_cuda(device.context())) return true;
    const Device d = device.device();
    return d.params().type == DeviceType::gpu &&
           characterize::vendor_of(d.properties().vendor) == characterize::Vendor::nvidia;
}

}  // namespace kjarni::detail
