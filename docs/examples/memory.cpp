// The example of docs/memory.md: buffers and sub-regions, a device memory pool with queue-ordered
// reuse (and as the allocator of arrays), page-locked host memory for asynchronous transfers, its
// pool, host memory page-locked in place, and the staging of large transfers from pageable memory.
// Every transfer is checked against the data it came from; the first argument names the device (a
// device specifier), else the first device is used.

#include <kjarni/kjarni.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

namespace {

std::mt19937 engine(std::random_device{}());

std::vector<std::uint32_t> random_words(std::size_t n) {
    std::vector<std::uint32_t> values(n);
    for (auto& v : values) v = static_cast<std::uint32_t>(engine());
    return values;
}

bool report(bool ok, const char* what) {
    std::cout << what << ": " << (ok ? "OK" : "MISMATCH") << '\n';
    return ok;
}

int run(const kjarni::Context& context) {
    const kjarni::BoundDevice device = context.devices()[0];
    const kjarni::Queue queue(device);
    const std::size_t n = 1 << 14;
    const std::vector<std::uint32_t> data = random_words(n);
    bool ok = true;

    //! [buffers]
    // A Buffer is a handle: copies and sub-regions share the allocation, freed with the last one.
    const kjarni::Buffer buffer = kjarni::Buffer::allocate(device, n * sizeof(std::uint32_t));
    buffer.set(queue, std::span<const std::uint32_t>(data));
    const kjarni::Buffer second_half = buffer.get_sub_region(buffer.size() / 2, buffer.size() / 2);
    const std::uint32_t pattern = 0xdeadbeef;
    second_half.fill(queue, std::as_bytes(std::span<const std::uint32_t>(&pattern, 1)));
    std::vector<std::uint32_t> back(n);
    buffer.get(queue, std::span<std::uint32_t>(back));
    //! [buffers]
    std::vector<std::uint32_t> expected = data;
    std::fill(expected.begin() + n / 2, expected.end(), pattern);
    ok = report(back == expected, "buffer, sub-region and fill") && ok;

    //! [pool]
    // Blocks come back to the pool when their last handle goes; one allocated for a queue is
    // handed out again to that queue at once (its work runs in order), to another queue only
    // behind an event.
    const kjarni::MemoryPool pool;
    {
        const kjarni::Buffer scratch = pool.allocate(queue, 1000 * sizeof(float));
        scratch.set(queue, std::span<const std::uint32_t>(data.data(), 1000), /*async=*/true);
    }  // scratch's block is held by the pool now, possibly still in use by the queue
    // A request of the same bin (here the same size) takes that block: nothing is allocated.
    const kjarni::Buffer reused = pool.allocate(queue, 1000 * sizeof(float));
    const kjarni::MemoryPoolStatistics statistics = pool.statistics();
    std::cout << "pool: " << statistics.active_blocks << " active, " << statistics.held_blocks << " held, "
              << statistics.managed_bytes << " bytes managed\n";

    // A MemoryPool is an Allocator: arrays and expression results can come from it.
    const kjarni::Array x = kjarni::Array::empty(device, {n}, kjarni::dtypes::uint32, std::nullopt, 0, pool);
    x.set(queue, std::span<const std::uint32_t>(data));
    const kjarni::Array y = kjarni::evaluate(queue, kjarni::Expr(x) + 1u, pool);
    //! [pool]
    const std::vector<std::uint32_t> y_values = y.get(queue).to_vector<std::uint32_t>();
    bool pool_ok =
        statistics.active_blocks == 1 && statistics.held_blocks == 0 && reused.size() == 1000 * sizeof(float);
    for (std::size_t i = 0; i < n; ++i) pool_ok = pool_ok && y_values[i] == data[i] + 1u;  // wraps as in C
    ok = report(pool_ok, "memory pool: reuse, arrays and an expression from it") && ok;

    //! [page_locked]
    // Page-locked host memory: asynchronous transfers from and to it truly overlap with other
    // work, and run at the full speed of the bus. The memory must stay untouched until the queue
    // has passed the transfer.
    const kjarni::HostMemory staging = kjarni::HostMemory::allocate(context, n * sizeof(std::uint32_t));
    const std::span<std::uint32_t> pinned = staging.as_span<std::uint32_t>();
    std::copy(data.begin(), data.end(), pinned.begin());
    buffer.set(queue, std::span<const std::uint32_t>(pinned), /*async=*/true);
    // ... other work on the host here ...
    buffer.get(queue, pinned, /*async=*/true);
    queue.synchronize();  // now `pinned` holds what the device sent back
    //! [page_locked]
    ok = report(std::equal(pinned.begin(), pinned.end(), data.begin()), "page-locked asynchronous round trip") && ok;

    //! [host_pool]
    // A pool of page-locked memory, for staging buffers that come and go.
    const kjarni::HostMemoryPool host_pool;
    {
        const kjarni::HostMemory block = host_pool.allocate(context, std::size_t{64} << 10);
    }  // back in the pool, ready for the next request of that size
    const kjarni::HostMemory again = host_pool.allocate(context, std::size_t{64} << 10);
    //! [host_pool]
    ok = report(host_pool.held_blocks() == 0 && host_pool.active_blocks() == 1 && again.size() == std::size_t{64} << 10,
                "page-locked pool: a block reused") &&
         ok;

    //! [register]
    // The caller's memory page-locked in place (cuMemHostRegister, CL_MEM_USE_HOST_PTR): transfers
    // from it skip the staging. It is unregistered, not freed, with the last handle.
    std::vector<std::uint32_t> mine = random_words(n);
    {
        const kjarni::HostMemory registered =
            kjarni::HostMemory::register_memory(context, std::as_writable_bytes(std::span(mine)));
        buffer.set(queue, std::span<const std::uint32_t>(mine));
    }
    //! [register]
    buffer.get(queue, std::span<std::uint32_t>(back));
    ok = report(back == mine, "registered host memory") && ok;

    //! [staging]
    // Large transfers from ordinary (pageable) memory are cut into chunks that pass through
    // page-locked slots while the bus works; the settings are per context. Here made small, so
    // that this small transfer is staged too.
    kjarni::TransferStaging settings;
    settings.threshold = std::size_t{16} << 10;
    settings.chunk_size = std::size_t{16} << 10;
    kjarni::set_transfer_staging(context, settings);
    buffer.set(queue, std::span<const std::uint32_t>(data));  // 64 KiB from a std::vector, in chunks of at most 16 KiB
    const kjarni::TransferStagingStatistics staged = kjarni::transfer_staging_statistics(context);
    std::cout << "staged: " << staged.staged_transfers << " transfers, " << staged.staged_chunks << " chunks\n";
    kjarni::reset_transfer_staging(context);
    //! [staging]
    buffer.get(queue, std::span<std::uint32_t>(back));
    ok = report(back == data && staged.staged_transfers >= 1, "staged transfer") && ok;
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<kjarni::Device> devices = kjarni::devices_from_specifiers(argc > 1 ? argv[1] : "");
        if (devices.empty()) throw kjarni::NotFoundError("no device: no GPU API is available here");
        return run(kjarni::Context::from_devices(devices.front()));
    } catch (const kjarni::Error& e) {
        std::cerr << "memory example failed: " << e.what() << '\n';
        return 1;
    }
}
