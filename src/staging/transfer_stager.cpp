#include "staging/transfer_stager.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "kjarni/error.hpp"
#include "staging/page_locked_registry.hpp"
#include "staging/parallel_copier.hpp"

namespace kjarni::detail {

namespace {

// The default thread count's cap. On the H100 machine (16 cores, 256 MiB, streaming stores) 12
// threads beat 8 by 10-20% in both directions (bench/transfers_bench.cpp's staged_c*_t* sweep);
// beyond that memory bandwidth, not threads, limits the host copy.
constexpr unsigned max_default_threads = 12;
// A sanity bound on explicit thread counts.
constexpr unsigned max_threads = 256;

unsigned thread_count(const TransferStaging& settings) {
    if (settings.threads != 0) return settings.threads;
    return std::clamp(std::thread::hardware_concurrency(), 1U, max_default_threads);
}

// OpenCL devices sharing memory with the host: a "transfer" is a host copy already.
bool stages_by_default(backend::Context& context, std::size_t device_index) {
    return !(context.api().id() == ApiId::opencl() && context.devices().at(device_index)->properties().unified_memory);
}

// After a failure: a copy may be in flight without its event, so the queue is waited for before the
// slots are reused. Its own error, if any, would only hide the one being thrown.
void settle_after_failure(backend::Queue& queue) noexcept {
    try {
        queue.synchronize();
    } catch (...) {  // the error being thrown matters, not this one
    }
}

}  // namespace

std::size_t relay_chunk_setting(std::size_t fallback, std::size_t most_mib) {
    const char* text = std::getenv("KJARNI_RELAY_CHUNK_MIB");
    if (text == nullptr) return fallback;
    char* end = nullptr;
    const unsigned long mib = std::strtoul(text, &end, 10);
    return end != text && *end == '\0' && mib > 0 && mib <= most_mib ? std::size_t{mib} << 20 : fallback;
}

std::size_t relay_chunk_size() {
    static const std::size_t bytes = relay_chunk_setting(std::size_t{4} << 20, 1024);
    return bytes;
}

std::vector<std::size_t> chunk_plan(std::size_t size, std::size_t chunk_size) {
    std::vector<std::size_t> sizes;
    std::size_t next = std::max<std::size_t>(chunk_size / 8, 1);
    for (std::size_t done = 0; done < size;) {
        sizes.push_back(std::min(next, size - done));
        done += sizes.back();
        next = std::min(next * 2, chunk_size);
    }
    return sizes;
}

struct TransferStager::Lane {
    struct Slot {
        std::shared_ptr<backend::HostAllocation> memory;
        std::shared_ptr<backend::Event> last_use;  // the last transfer through the slot
        std::byte* data() const { return static_cast<std::byte*>(memory->host_pointer()); }
        void wait() const {
            if (last_use) last_use->wait();
        }
    };

    std::mutex mutex;  // held for a whole staged transfer
    std::vector<Slot> slots;
    std::size_t slot_size = 0;

    ~Lane() { wait_all(); }

    void wait_all() noexcept {
        for (auto& slot : slots) {
            try {
                slot.wait();
            } catch (...) {  // a failed transfer has nothing left to wait for
            }
        }
    }

    // Slots as the settings ask (lane mutex held). False when the host cannot lock that much
    // memory: the transfer then goes directly, blocking.
    bool provide_slots(backend::Context& context, const TransferStaging& settings) {
        if (slots.size() == settings.slots && slot_size == settings.chunk_size) return true;
        wait_all();
        slots.clear();
        slot_size = 0;
        std::vector<Slot> made;
        try {
            for (unsigned i = 0; i < settings.slots; ++i) {
                // Portable: the slots serve every device of the context (CUDA pins memory for one
                // context otherwise).
                made.push_back({allocate_page_locked(context, settings.chunk_size, {.portable = true}), nullptr});
            }
        } catch (const OutOfMemoryError&) {
            return false;
        }
        slots = std::move(made);
        slot_size = settings.chunk_size;
        return true;
    }
};

struct TransferStager::Use {
    Lane* lane;
    std::shared_ptr<ParallelCopier> copier;
    TransferStaging settings;
};

TransferStager::TransferStager() = default;
TransferStager::~TransferStager() = default;

std::optional<TransferStager::Use> TransferStager::begin(backend::Context& context, std::size_t device_index,
                                                         const void* host, std::size_t size) {
    const std::lock_guard lock(mutex_);
    if (!settings_ && !stages_by_default(context, device_index)) return std::nullopt;
    const TransferStaging settings = settings_.value_or(TransferStaging{});
    if (size < settings.threshold || size == 0) return std::nullopt;
    if (is_registered_page_locked(host, size)) {
        ++statistics_.page_locked_transfers;
        return std::nullopt;
    }
    return use_of(context, device_index, settings);
}

TransferStager::Use TransferStager::use_of(backend::Context& context, std::size_t device_index,
                                           const TransferStaging& settings) {
    if (lanes_.size() <= device_index) lanes_.resize(context.devices().size());
    auto& lane = lanes_.at(device_index);
    if (!lane) lane = std::make_unique<Lane>();
    // A transfer still using a copier of other settings keeps it alive until it ends.
    if (!copier_ || copier_->threads() != thread_count(settings)) {
        copier_ = std::make_shared<ParallelCopier>(thread_count(settings));
    }
    return Use{lane.get(), copier_, settings};
}

void TransferStager::count(std::size_t chunks, std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    ++statistics_.staged_transfers;
    statistics_.staged_chunks += chunks;
    statistics_.staged_bytes += bytes;
}

bool TransferStager::write(backend::Context& context, backend::Queue& queue, backend::Buffer& destination,
                           std::size_t offset, std::span<const std::byte> host, bool async) {
    auto use = begin(context, queue.device_index(), host.data(), host.size());
    if (!use) return false;
    Lane& lane = *use->lane;
    const std::lock_guard lock(lane.mutex);
    if (!lane.provide_slots(context, use->settings)) {
        // Blocking, so that what the header promises of staged asynchronous writes holds.
        queue.write(destination, offset, host.data(), host.size(), true);
        return true;
    }
    const std::vector<std::size_t> chunks = chunk_plan(host.size(), use->settings.chunk_size);
    try {
        std::size_t done = 0;
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            auto& slot = lane.slots[i % lane.slots.size()];
            slot.wait();
            // Dropped first: if the write below fails, the slot is not left waiting on it.
            slot.last_use.reset();
            use->copier->copy(slot.data(), host.data() + done, chunks[i], use->settings.streaming_stores);
            queue.write(destination, offset + done, slot.data(), chunks[i], false);
            slot.last_use = queue.record_event();
            done += chunks[i];
        }
        if (!async) lane.slots[(chunks.size() - 1) % lane.slots.size()].wait();
    } catch (...) {
        settle_after_failure(queue);
        throw;
    }
    count(chunks.size(), host.size());
    return true;
}

bool TransferStager::read(backend::Context& context, backend::Queue& queue, std::span<std::byte> host,
                          backend::Buffer& source, std::size_t offset) {
    auto use = begin(context, queue.device_index(), host.data(), host.size());
    if (!use) return false;
    Lane& lane = *use->lane;
    const std::lock_guard lock(lane.mutex);
    if (!lane.provide_slots(context, use->settings)) {
        queue.read(host.data(), source, offset, host.size(), true);
        return true;
    }
    std::vector<std::size_t> chunks = chunk_plan(host.size(), use->settings.chunk_size);
    std::reverse(chunks.begin(), chunks.end());
    std::vector<std::size_t> starts(chunks.size());
    for (std::size_t i = 1; i < chunks.size(); ++i) starts[i] = starts[i - 1] + chunks[i - 1];
    const std::size_t slot_count = lane.slots.size();

    // Chunk i goes through slot i % slot_count; once copied out, the slot takes chunk i + slot_count.
    auto enqueue = [&](std::size_t i) {
        auto& slot = lane.slots[i % slot_count];
        slot.wait();
        slot.last_use.reset();
        queue.read(slot.data(), source, offset + starts[i], chunks[i], false);
        slot.last_use = queue.record_event();
    };
    try {
        for (std::size_t i = 0; i < std::min(slot_count, chunks.size()); ++i) enqueue(i);
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            auto& slot = lane.slots[i % slot_count];
            slot.wait();
            use->copier->copy(host.data() + starts[i], slot.data(), chunks[i], use->settings.streaming_stores);
            if (i + slot_count < chunks.size()) enqueue(i + slot_count);
        }
    } catch (...) {
        settle_after_failure(queue);
        throw;
    }
    count(chunks.size(), host.size());
    return true;
}

bool TransferStager::relay(backend::Context& context, backend::Queue& source_queue, backend::Buffer& source,
                           std::size_t source_offset, backend::Queue& destination_queue, backend::Buffer& destination,
                           std::size_t destination_offset, std::size_t size, bool async) {
    if (size == 0) return true;
    Use use = [&] {
        const std::lock_guard lock(mutex_);
        return use_of(context, source_queue.device_index(), settings_.value_or(TransferStaging{}));
    }();
    Lane& lane = *use.lane;
    const std::lock_guard lock(lane.mutex);
    if (!lane.provide_slots(context, use.settings)) return false;
    const std::vector<std::size_t> chunks = chunk_plan(size, std::min(use.settings.chunk_size, relay_chunk_size()));
    std::vector<std::size_t> starts(chunks.size());
    for (std::size_t i = 1; i < chunks.size(); ++i) starts[i] = starts[i - 1] + chunks[i - 1];
    const std::size_t slot_count = lane.slots.size();
    // Chunk i goes through slot i % slot_count. The reads are events of the source's context, the
    // writes of the destination's: no queue of one can wait for the other's, so the host does.
    std::vector<std::shared_ptr<backend::Event>> reads(chunks.size());
    auto enqueue_read = [&](std::size_t i) {
        auto& slot = lane.slots[i % slot_count];
        slot.wait();  // the write out of the slot's previous chunk
        slot.last_use.reset();
        source_queue.read(slot.data(), source, source_offset + starts[i], chunks[i], false);
        reads[i] = source_queue.record_event();
        slot.last_use = reads[i];
    };
    try {
        // One slot is left for the write in flight, so that a read never waits for the write
        // just enqueued (it waits for the one before, which the destination's bus has by then
        // passed, or nearly).
        const std::size_t ahead = std::max<std::size_t>(slot_count - 1, 1);
        for (std::size_t i = 0; i < std::min(ahead, chunks.size()); ++i) enqueue_read(i);
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            auto& slot = lane.slots[i % slot_count];
            reads[i]->wait();
            reads[i].reset();
            destination_queue.write(destination, destination_offset + starts[i], slot.data(), chunks[i], false);
            slot.last_use = destination_queue.record_event();
            if (i + ahead < chunks.size()) enqueue_read(i + ahead);
        }
        if (!async) lane.slots[(chunks.size() - 1) % slot_count].wait();
    } catch (...) {
        settle_after_failure(source_queue);
        settle_after_failure(destination_queue);
        throw;
    }
    count(chunks.size(), size);
    return true;
}

bool TransferStager::relay_between_devices(backend::Context& context, backend::Queue& queue,
                                           backend::Buffer& destination, std::size_t destination_offset,
                                           std::size_t destination_device, backend::Buffer& source,
                                           std::size_t source_offset, std::size_t source_device, std::size_t size,
                                           bool async) {
    // CUDA copies between its devices directly (peer copies, or staged by the driver at its best).
    if (size == 0 || source_device == destination_device || context.api().id() != ApiId::opencl()) return false;
    std::shared_ptr<backend::Queue> helper;
    Use use = [&]() -> Use {
        const std::lock_guard lock(mutex_);
        if (!settings_ &&
            !(stages_by_default(context, source_device) && stages_by_default(context, destination_device)))
            return {nullptr, nullptr, {}};
        const TransferStaging settings = settings_.value_or(TransferStaging{});
        if (size < settings.threshold) return {nullptr, nullptr, {}};
        const std::size_t other = queue.device_index() == source_device ? destination_device : source_device;
        if (helpers_.size() <= other) helpers_.resize(context.devices().size());
        if (!helpers_.at(other)) helpers_.at(other) = context.create_queue(other);
        helper = helpers_.at(other);
        return use_of(context, source_device, settings);
    }();
    if (use.lane == nullptr) return false;
    Lane& lane = *use.lane;
    const std::lock_guard lock(lane.mutex);
    if (!lane.provide_slots(context, use.settings)) return false;
    const bool from_queue = queue.device_index() == source_device;
    backend::Queue& reads = from_queue ? queue : *helper;
    backend::Queue& writes = from_queue ? *helper : queue;
    const std::vector<std::size_t> chunks = chunk_plan(size, std::min(use.settings.chunk_size, relay_chunk_size()));
    try {
        // The helper's part comes after everything enqueued on `queue` so far.
        helper->wait_for(*queue.record_event());
        std::size_t done = 0;
        for (std::size_t i = 0; i < chunks.size(); ++i) {
            auto& slot = lane.slots[i % lane.slots.size()];
            slot.wait();  // the write out of the slot's previous chunk
            slot.last_use.reset();
            reads.read(slot.data(), source, source_offset + done, chunks[i], false);
            writes.wait_for(*reads.record_event());
            writes.write(destination, destination_offset + done, slot.data(), chunks[i], false);
            slot.last_use = writes.record_event();
            done += chunks[i];
        }
        auto& last = lane.slots[(chunks.size() - 1) % lane.slots.size()];
        // Work enqueued on `queue` later comes after the last write.
        if (from_queue) queue.wait_for(*last.last_use);
        if (!async) last.wait();
    } catch (...) {
        settle_after_failure(*helper);
        settle_after_failure(queue);
        throw;
    }
    count(chunks.size(), size);
    return true;
}

void TransferStager::set_settings(std::optional<TransferStaging> settings) {
    if (settings) {
        if (settings->chunk_size == 0) throw ArgumentError("settings", "chunk_size must not be 0");
        if (settings->slots < 2) {
            throw ArgumentError("settings", fmt::format("slots must be at least 2, got {}", settings->slots));
        }
        if (settings->threads > max_threads) {
            throw ArgumentError("settings",
                                fmt::format("threads must be at most {}, got {}", max_threads, settings->threads));
        }
    }
    const std::lock_guard lock(mutex_);
    settings_ = settings;
}

std::optional<TransferStaging> TransferStager::settings() const {
    const std::lock_guard lock(mutex_);
    return settings_;
}

TransferStagingStatistics TransferStager::statistics() const {
    const std::lock_guard lock(mutex_);
    return statistics_;
}

}  // namespace kjarni::detail
