#pragma once
// The timing loop the bandwidth benchmarks share: each iteration enqueues `batch` operations and
// waits once, so that the wait costs little at large sizes and the figure is the launch rate at
// small ones; one untimed call first compiles and warms up. GB/s counts `useful_bytes` per call.

#include <benchmark/benchmark.h>

#include <cstddef>

#include "kjarni/queue.hpp"

namespace kjarni::bench {

template <class Work>
void run_batched(benchmark::State& state, const Queue& queue, std::size_t useful_bytes, int batch, Work&& work) {
    work();
    queue.synchronize();
    for (auto _ : state) {
        for (int k = 0; k < batch; ++k) work();
        queue.synchronize();
    }
    state.counters["GB/s"] = benchmark::Counter(static_cast<double>(useful_bytes) * batch * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace kjarni::bench
