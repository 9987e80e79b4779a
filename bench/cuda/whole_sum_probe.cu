// The whole float32 sum's one kernel (data/kernels/reduction.mako's GPU form, written out by hand
// for n_out = 1 and lanes = group) under several group sizes, least items per work item, lane
// combines and loads in flight, beside CUB's DeviceReduce::Sum in the same binary, at 1, 4 and 16
// MiB. F: how a group counts itself done (counted_last). TREE 0: the local-memory tree; 1: warp shuffles, then one barrier and the first warp (what
// reduction.mako does where warps shuffle); 2: the tree's levels across warps, then shuffles. U:
// 16-byte loads in flight a work item. GPU time between events around 200 launches queued behind a
// spin kernel, medians of 15 interleaved repetitions; each result checked against the host's sum.
// Not built by CMake (nvcc and a GPU, nothing of kjarni):
//     nvcc -O3 -arch=sm_90 -o /tmp/whole_sum_probe bench/cuda/whole_sum_probe.cu && /tmp/whole_sum_probe
// H200 figures of 2026-12-02: reduction_engine.cpp's strategy() and docs/algorithms.md.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <string>
#include <vector>

__global__ void spin(long long cycles) {
    long long t = clock64();
    while (clock64() - t < cycles) {
    }
}

template <int TREE>
__device__ __forceinline__ float combined(float v, int L, int lane, int lid, float* scratch) {
    if (TREE == 0) {
        if (L > 1) {
            scratch[lid] = v;
            __syncthreads();
            for (int h = L / 2; h > 0; h >>= 1) {
                if (lane < h) scratch[lid] = scratch[lid] + scratch[lid + h];
                __syncthreads();
            }
            v = scratch[lid];
        }
    } else if (TREE == 2) {
        if (L > 1) {
            if (L > 32) {
                scratch[lid] = v;
                __syncthreads();
                for (int h = L / 2; h >= 32; h >>= 1) {
                    if (lane < h) scratch[lid] = scratch[lid] + scratch[lid + h];
                    __syncthreads();
                }
                v = scratch[lid];
            }
            const int wl = L < 32 ? L : 32;
            for (int h = wl / 2; h > 0; h >>= 1) v = v + __shfl_down_sync(0xffffffffu, v, h);
        }
    } else {
        if (L > 1) {
            const int wl = L < 32 ? L : 32;
            for (int h = wl / 2; h > 0; h >>= 1) v = v + __shfl_down_sync(0xffffffffu, v, h);
            if (L > 32) {
                if (lid % 32 == 0) scratch[lid / 32] = v;
                __syncthreads();
                const int nw = L / 32;
                if (lane < nw) v = scratch[(lid - lane) / 32 + lane];
                for (int h = nw / 2; h > 0; h >>= 1) v = v + __shfl_down_sync(0xffffffffu, v, h);
            }
        }
    }
    return v;
}

// The group's count after its partial results are written. F 0: every work item fences, work item
// 0 counts with a relaxed atomicAdd and fences again if last (reduction.mako's form); 1: only the
// work items that wrote fence; 2: no fence, work item 0 counts with an acquire-release atomic after
// the barrier (release cumulative over the group's writes ordered before it by the barrier).
template <int F>
__device__ __forceinline__ bool counted_last(bool wrote, unsigned* done, int lid) {
    if (F == 0) __threadfence();
    if (F == 1 && wrote) __threadfence();
    __shared__ int last;
    __syncthreads();
    if (lid == 0) {
        if (F == 2) {
            unsigned old;
            asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(done) : "memory");
            last = old == gridDim.x - 1u;
        } else {
            last = atomicAdd(done, 1u) == gridDim.x - 1u;
            if (last) __threadfence();
        }
    }
    __syncthreads();
    return last;
}

template <int GROUP, int TREE, int U, int F = 0>
__global__ void __launch_bounds__(GROUP) red(float* res, float* partial, int n_red, int step, int lanes, unsigned* done,
                                             int combine_lanes, const float* a0) {
    const int lid = threadIdx.x;
    const int lane = lid % lanes;
    const int p = blockIdx.x;
    float acc = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    int r = p * lanes + lane;
    const float4* av = (const float4*)a0;
    const int nv = n_red / 4;
    float4 w[U];
    for (; nv - r > (U - 1) * step; r += U * step) {
#pragma unroll
        for (int u = 0; u < U; ++u) w[u] = av[r + u * step];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            acc += w[u].x;
            acc1 += w[u].y;
            acc2 += w[u].z;
            acc3 += w[u].w;
        }
    }
    for (; r < nv; r += step) {
        w[0] = av[r];
        acc += w[0].x;
        acc1 += w[0].y;
        acc2 += w[0].z;
        acc3 += w[0].w;
    }
    acc = (acc + acc1) + (acc2 + acc3);
    __shared__ float scratch[GROUP];
    acc = combined<TREE>(acc, lanes, lane, lid, scratch);
    if (lane == 0) partial[p] = acc;
    if (counted_last<F>(lane == 0, done, lid)) {
        const int pieces = gridDim.x;
        const int kl = lid % combine_lanes;
        const bool mine = lid / combine_lanes < 1;
        float k = 0;
        if (mine) {
            float k1 = 0, k2 = 0, k3 = 0;
            int q = kl;
            for (; pieces - q > 3 * combine_lanes; q += 4 * combine_lanes) {
                k += partial[q];
                k1 += partial[q + combine_lanes];
                k2 += partial[q + 2 * combine_lanes];
                k3 += partial[q + 3 * combine_lanes];
            }
            for (; q < pieces; q += combine_lanes) k += partial[q];
            k = (k + k1) + (k2 + k3);
        }
        k = combined<TREE>(k, combine_lanes, kl, lid, scratch);
        if (kl == 0 && mine) res[0] = k;
        if (lid == 0) done[0] = 0u;
    }
}

static int floor_pow2(long v) {
    int p = 1;
    while ((long)p * 2 <= v) p *= 2;
    return p;
}

int main() {
    cudaStream_t st;
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int calls = 200, reps = 15;
    unsigned* done;
    cudaMalloc(&done, 4);
    cudaMemset(done, 0, 4);
    float *res, *partial;
    cudaMalloc(&res, 4);
    cudaMalloc(&partial, 1 << 20);
    for (int mib : {1, 4, 16}) {
        const int n = (mib << 20) / 4;
        float* a;
        cudaMalloc(&a, (size_t)n * 4);
        std::vector<float> h(n);
        double want = 0;
        for (int i = 0; i < n; ++i) {
            h[i] = (float)((i * 7919) % 1000) * 0.001f;
            want += h[i];
        }
        cudaMemcpy(a, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
        size_t tmp_bytes = 0;
        cub::DeviceReduce::Sum(nullptr, tmp_bytes, a, res, n, st);
        void* tmp;
        cudaMalloc(&tmp, tmp_bytes);
        struct V {
            std::string name;
            int group, items, tree, u, f = 0;
        };
        std::vector<V> vs;
        vs.push_back({"CUB DeviceReduce::Sum", 0, 0, 0, 0});
        for (int g : {512, 256})
            for (int items : {32, 16, 8})
                for (int tree : {0, 1, 2})
                    for (int u : {4, 8}) {
                        if (u == 8 && items < 32) continue;
                        vs.push_back({"g" + std::to_string(g) + " items" + std::to_string(items) +
                                          (tree == 1   ? " shfl"
                                           : tree == 2 ? " smem+shfl"
                                                       : " smem") +
                                          " U" + std::to_string(u),
                                      g, items, tree, u});
                    }
        for (int g : {512, 256})
            for (int items : {16, 8})
                for (int f : {1, 2})
                    vs.push_back({"g" + std::to_string(g) + " items" + std::to_string(items) + " shfl U4 " +
                                      (f == 1 ? "writers fence" : "acq_rel count"),
                                  g, items, 1, 4, f});
        std::vector<std::vector<float>> t(vs.size());
        std::vector<float> got(vs.size());
        for (int rep = 0; rep < reps; ++rep)
            for (size_t k = 0; k < vs.size(); ++k) {
                const V& v = vs[k];
                const int pieces =
                    v.group ? floor_pow2(std::min<long>((long)sms * 64, n / ((long)v.group * v.items))) : 0;
                spin<<<1, 1, 0, st>>>(4000000);
                cudaEventRecord(e0, st);
                for (int c = 0; c < calls; ++c) {
                    if (!v.group) {
                        cub::DeviceReduce::Sum(tmp, tmp_bytes, a, res, n, st);
                        continue;
                    }
                    const int step = pieces * v.group, cl = std::min(v.group, pieces);
#define L(G, T, UU) red<G, T, UU><<<pieces, G, 0, st>>>(res, partial, n, step, G, done, cl, a)
#define LF(G, F) red<G, 1, 4, F><<<pieces, G, 0, st>>>(res, partial, n, step, G, done, cl, a)
                    if (v.f != 0) {
                        if (v.group == 512) {
                            if (v.f == 1) LF(512, 1);
                            else LF(512, 2);
                        } else {
                            if (v.f == 1) LF(256, 1);
                            else LF(256, 2);
                        }
                        continue;
                    }
                    if (v.group == 512) {
                        if (v.tree == 0) {
                            if (v.u == 4) L(512, 0, 4);
                            else L(512, 0, 8);
                        } else if (v.tree == 1) {
                            if (v.u == 4) L(512, 1, 4);
                            else L(512, 1, 8);
                        } else {
                            if (v.u == 4) L(512, 2, 4);
                            else L(512, 2, 8);
                        }
                    } else {
                        if (v.tree == 0) {
                            if (v.u == 4) L(256, 0, 4);
                            else L(256, 0, 8);
                        } else if (v.tree == 1) {
                            if (v.u == 4) L(256, 1, 4);
                            else L(256, 1, 8);
                        } else {
                            if (v.u == 4) L(256, 2, 4);
                            else L(256, 2, 8);
                        }
                    }
                }
                cudaEventRecord(e1, st);
                cudaEventSynchronize(e1);
                float ms;
                cudaEventElapsedTime(&ms, e0, e1);
                t[k].push_back(ms * 1000.f / calls);
                cudaMemcpy(&got[k], res, 4, cudaMemcpyDeviceToHost);
            }
        const double cub_us = (std::sort(t[0].begin(), t[0].end()), t[0][reps / 2]);
        for (size_t k = 0; k < vs.size(); ++k) {
            std::sort(t[k].begin(), t[k].end());
            const double us = t[k][reps / 2];
            printf("%3d MiB %-26s %7.3f us  CUB/this %.3f  sum %.6g (want %.6g) %s\n", mib, vs[k].name.c_str(), us,
                   cub_us / us, got[k], want, std::abs(got[k] - want) <= 1e-5 * want ? "ok" : "WRONG");
        }
        cudaFree(a);
        cudaFree(tmp);
    }
    printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
