#pragma once
// The timing loop the bandwidth benchmarks share: each iteration enqueues `batch` operations and
// waits once, so that the wait costs little at large sizes and the figure is the launch rate at
// small ones; one untimed call first compiles and warms up. GB/s counts `useful_bytes` per call.
//
// Two figures: "GB/s" from the wall clock (the host's launches and its wait included), and
// "GB/s events" from two events recorded on the queue around each batch, the way the peers'
// scripts time PyTorch and CuPy (bench/peers/peer_timing.py: an event, the batch, an event, a wait,
// on a queue that was idle before). Set beside a peer, the events figure is the like-for-like one.

#include <benchmark/benchmark.h>

#include <cstddef>

#include "kjarni/event.hpp"
#include "kjarni/queue.hpp"

namespace kjarni::bench {

template <class Work>
void run_batched(benchmark::State& state, const Queue& queue, std::size_t useful_bytes, int batch, Work&& work) {
    work();
    queue.synchronize();
    double event_ms = 0.0;
    for (auto _ : state) {
        const Event start = queue.record_event();
        for (int k = 0; k < batch; ++k) work();
        const Event end = queue.record_event();
        end.wait();
        event_ms += end.time_since(start);
    }
    const double bytes = static_cast<double>(useful_bytes) * batch;
    state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    if (event_ms > 0.0)
        state.counters["GB/s events"] = bytes * static_cast<double>(state.iterations()) / (event_ms * 1e-3) * 1e-9;
}

}  // namespace kjarni::bench
