// The public face of transfer staging (include/kjarni/transfer_staging.hpp): the context's stager.

#include "kjarni/transfer_staging.hpp"

#include "core/context_state.hpp"
#include "staging/page_locked_registry.hpp"

namespace kjarni {

void set_transfer_staging(const Context& context, const TransferStaging& settings) {
    detail::state_of(context).staging.set_settings(settings);
}

void reset_transfer_staging(const Context& context) { detail::state_of(context).staging.set_settings(std::nullopt); }

std::optional<TransferStaging> transfer_staging(const Context& context) {
    return detail::state_of(context).staging.settings();
}

TransferStagingStatistics transfer_staging_statistics(const Context& context) {
    return detail::state_of(context).staging.statistics();
}

bool is_kjarni_page_locked(const void* data, std::size_t size) {
    return size != 0 && detail::is_registered_page_locked(data, size);
}

}  // namespace kjarni
