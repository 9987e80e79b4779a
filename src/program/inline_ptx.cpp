#include "program/inline_ptx.hpp"

#include "kjarni/api_id.hpp"
#include "kjarni/device.hpp"
#include "kjarni/device_facts.hpp"
#include "kjarni/device_parameters.hpp"

namespace kjarni::detail {

bool takes_inline_ptx(const BoundDevice& device) {
    if (device.context().api().id() == ApiId::cuda()) return true;
    const Device d = device.device();
    return d.params().type == DeviceType::gpu &&
           characterize::vendor_of(d.properties().vendor) == characterize::Vendor::nvidia;
}

}  // namespace kjarni::detail
