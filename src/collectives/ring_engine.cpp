// The fallback engine of one rank whose peers are reached through a Rendezvous (threads of this
// process, other processes, other hosts): every byte that leaves the device is staged through
// page-locked host memory and moved by the rendezvous' ordered byte streams; reductions run on the
// device with kjarni's kernels.
//
// all_reduce and reduce_scatter are rings (each rank sends to rank + 1 and receives from rank - 1):
// in count - 1 steps every rank combines one incoming block into its own copy of that block, so that
// rank r ends with block r reduced over every rank while each link carries (count - 1) / count of
// the data; all_reduce then passes the reduced blocks around the ring once more (an all-gather).
// reduce gathers at the root, broadcast sends from it, all_to_all pairs the ranks step by step.
// Every call waits for its queue first (the downloads do) and completes before it returns.

#include <fmt/format.h>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "collectives/comm_engine.hpp"
#include "collectives/device_steps.hpp"
#include "kjarni/host_memory.hpp"

namespace kjarni::detail {

namespace {

class RingEngine final : public CommEngine {
public:
    explicit RingEngine(std::shared_ptr<Rendezvous> rendezvous) : rendezvous_(std::move(rendezvous)) {}

    int rank() const noexcept override { return rendezvous_->rank(); }
    int count() const noexcept override { return rendezvous_->count(); }
    std::string name() const override { return "fallback"; }
    bool is_nccl() const noexcept override { return false; }

    // Every call of this engine completes before it returns: what is left on the queue is the
    // caller's own work, and a dead peer has already given PeerError through the rendezvous.
    void wait(const Queue& queue, std::chrono::milliseconds /*timeout*/) override { queue.synchronize(); }

    void all_reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) override {
        const std::size_t size = src.size();
        const auto n = static_cast<std::size_t>(count());
        const auto first = [&](std::size_t block) { return size * block / n; };
        const auto length = [&](std::size_t block) { return first(block + 1) - first(block); };
        const Array own = reduce_scatter_ring(queue, src, first, length, op);
        // The all-gather: send the own block, then pass on what arrives from the left.
        const std::size_t itemsize = src.dtype().itemsize();
        const std::size_t largest = (size + n - 1) / n * itemsize;
        const HostMemory outgoing = staging(queue, largest), incoming = staging(queue, largest);
        std::span<std::byte> send = outgoing.bytes(), receive = incoming.bytes();
        const auto me = static_cast<std::size_t>(rank());
        download(queue, bytes_of(own), send.first(length(me) * itemsize));
        copy_after(queue, elements_of(dst, first(me), length(me)), queue, bytes_of(own));
        for (std::size_t step = 0; step + 1 < n; ++step) {
            const std::size_t sent = (me + n - step) % n, arriving = (me + 2 * n - step - 1) % n;
            rendezvous_->exchange(right(), send.first(length(sent) * itemsize), left(),
                                  receive.first(length(arriving) * itemsize));
            upload(queue, receive.first(length(arriving) * itemsize),
                   elements_of(dst, first(arriving), length(arriving)));
            std::swap(send, receive);
        }
        queue.synchronize();
    }

    void reduce(const Queue& queue, const Array& src, const Array& dst, ReduceOp op, int root) override {
        const std::size_t nbytes = src.nbytes();
        const HostMemory host = staging(queue, nbytes);
        if (rank() != root) {
            download(queue, bytes_of(src), host.bytes());
            rendezvous_->send(root, host.bytes().first(nbytes));
            return;
        }
        // Combined in rank order at the root.
        const Array accumulator = temporary(queue, src.dtype(), src.size());
        const Array contribution = temporary(queue, src.dtype(), src.size());
        for (int peer = 0; peer < count(); ++peer) {
            const Array& target = peer == 0 ? accumulator : contribution;
            if (peer == root) {
                copy_after(queue, bytes_of(target), queue, bytes_of(src));
            } else {
                rendezvous_->recv(peer, host.bytes().first(nbytes));
                upload(queue, host.bytes().first(nbytes), bytes_of(target));
            }
            if (peer != 0) combine(queue, accumulator, contribution, op);
        }
        divide_for_avg(queue, accumulator, op, count());
        copy_after(queue, bytes_of(dst), queue, bytes_of(accumulator));
        queue.synchronize();
    }

    void broadcast(const Queue& queue, const Array& array, int root) override {
        const std::size_t nbytes = array.nbytes();
        const HostMemory host = staging(queue, nbytes);
        const std::span<std::byte> bytes = host.bytes().first(nbytes);
        if (rank() == root) {
            download(queue, bytes_of(array), bytes);
            for (int peer = 0; peer < count(); ++peer)
                if (peer != root) rendezvous_->send(peer, bytes);
        } else {
            rendezvous_->recv(root, bytes);
            upload(queue, bytes, bytes_of(array));
        }
    }

    void all_gather(const Queue& queue, const Array& src, const Array& dst) override {
        const std::size_t block = src.nbytes();
        const auto n = static_cast<std::size_t>(count());
        const auto me = static_cast<std::size_t>(rank());
        const HostMemory host = staging(queue, block * n);
        const std::span<std::byte> all = host.bytes().first(block * n);
        download(queue, bytes_of(src), all.subspan(me * block, block));
        for (std::size_t step = 0; step + 1 < n; ++step) {
            const std::size_t sent = (me + n - step) % n, arriving = (me + 2 * n - step - 1) % n;
            rendezvous_->exchange(right(), all.subspan(sent * block, block), left(),
                                  all.subspan(arriving * block, block));
        }
        upload(queue, all, bytes_of(dst));
    }

    void reduce_scatter(const Queue& queue, const Array& src, const Array& dst, ReduceOp op) override {
        const std::size_t size = dst.size();
        const Array own = reduce_scatter_ring(
            queue, src, [&](std::size_t block) { return block * size; }, [&](std::size_t) { return size; }, op);
        copy_after(queue, bytes_of(dst), queue, bytes_of(own));
        queue.synchronize();
    }

    void all_to_all(const Queue& queue, const Array& src, const Array& dst) override {
        const auto n = static_cast<std::size_t>(count());
        const auto me = static_cast<std::size_t>(rank());
        const std::size_t block = src.nbytes() / n;
        const HostMemory outgoing = staging(queue, src.nbytes()), incoming = staging(queue, src.nbytes());
        const std::span<std::byte> send = outgoing.bytes().first(src.nbytes());
        const std::span<std::byte> receive = incoming.bytes().first(src.nbytes());
        download(queue, bytes_of(src), send);
        std::copy_n(send.subspan(me * block).data(), block, receive.subspan(me * block).data());
        // Step s pairs every rank with the ranks s ahead (to send) and s behind (to receive).
        for (std::size_t step = 1; step < n; ++step) {
            const std::size_t to = (me + step) % n, from = (me + n - step) % n;
            rendezvous_->exchange(static_cast<int>(to), send.subspan(to * block, block), static_cast<int>(from),
                                  receive.subspan(from * block, block));
        }
        upload(queue, receive, bytes_of(dst));
    }

    void send(const Queue& queue, const Array& src, int peer) override {
        const HostMemory host = staging(queue, src.nbytes());
        const std::span<std::byte> bytes = host.bytes().first(src.nbytes());
        download(queue, bytes_of(src), bytes);
        rendezvous_->send(peer, bytes);
    }

    void recv(const Queue& queue, const Array& dst, int peer) override {
        const HostMemory host = staging(queue, dst.nbytes());
        const std::span<std::byte> bytes = host.bytes().first(dst.nbytes());
        rendezvous_->recv(peer, bytes);
        upload(queue, bytes, bytes_of(dst));
    }

private:
    int right() const { return (rank() + 1) % count(); }
    int left() const { return (rank() + count() - 1) % count(); }

    HostMemory staging(const Queue& queue, std::size_t size) const {
        return pool_.allocate(queue.device().context(), size);
    }

    /// Synchronous: waits for the queue, so that the bytes are those of every earlier write.
    static void download(const Queue& queue, const Buffer& source, std::span<std::byte> host) {
        if (!host.empty()) source.get(queue, host);
    }
    static void upload(const Queue& queue, std::span<const std::byte> host, const Buffer& target) {
        if (!host.empty()) target.set(queue, host);
    }

    /// The ring's reduce-scatter over blocks [first(b), first(b) + length(b)) of `src`: returns this
    /// rank's block reduced over every rank (avg divided), a new temporary.
    template <class First, class Length>
    Array reduce_scatter_ring(const Queue& queue, const Array& src, First first, Length length, ReduceOp op) {
        const auto n = static_cast<std::size_t>(count());
        const auto me = static_cast<std::size_t>(rank());
        const std::size_t itemsize = src.dtype().itemsize();
        // A copy of every block of src in an allocation of its own (kernels take whole allocations).
        std::vector<Array> blocks;
        std::size_t largest = 0;
        for (std::size_t b = 0; b < n; ++b) {
            blocks.push_back(temporary(queue, src.dtype(), length(b)));
            copy_after(queue, bytes_of(blocks.back()), queue, elements_of(src, first(b), length(b)));
            largest = std::max(largest, length(b));
        }
        const Array incoming_block = temporary(queue, src.dtype(), largest);
        const HostMemory outgoing = staging(queue, largest * itemsize), incoming = staging(queue, largest * itemsize);
        // Step s: send block me - s - 1 (which holds s + 1 contributions), receive block me - s - 2
        // and add this rank's: after count - 1 steps block `me` holds every rank's.
        for (std::size_t step = 0; step + 1 < n; ++step) {
            const std::size_t sent = (me + 2 * n - step - 1) % n, arriving = (me + 2 * n - step - 2) % n;
            const std::span<std::byte> send = outgoing.bytes().first(length(sent) * itemsize);
            const std::span<std::byte> receive = incoming.bytes().first(length(arriving) * itemsize);
            download(queue, bytes_of(blocks[sent]), send);
            rendezvous_->exchange(right(), send, left(), receive);
            if (receive.empty()) continue;
            const Array contribution = incoming_block[{Slice{0, static_cast<std::ptrdiff_t>(length(arriving))}}];
            upload(queue, receive, bytes_of(contribution));
            combine(queue, blocks[arriving], contribution, op);
        }
        divide_for_avg(queue, blocks[me], op, count());
        return blocks[me];
    }

    std::shared_ptr<Rendezvous> rendezvous_;
    HostMemoryPool pool_;
};

}  // namespace

std::shared_ptr<CommEngine> make_ring_engine(std::shared_ptr<Rendezvous> rendezvous) {
    return std::make_shared<RingEngine>(std::move(rendezvous));
}

}  // namespace kjarni::detail
