## The kernel of the reduction engine (src/algorithms/reduction_engine.cpp explains the strategy;
## its kernel_source gives the globals). Work item -> (output o, lane): `lanes` work items share an
## output and stride over its reduced elements with 4 accumulators each, then combine through local
## memory in a fixed tree; grid dimension 1 takes interleaved pieces of the reduced range, whose
## partial results a second pass (from_partials) combines.
## Globals: helpers (the algorithm prelude), acc, idx, result (C types), code (reduction_code's
## functions), value_code (kjarni_map_value, for vector loads), params (the kernel parameters of
## the arguments), index_params, prologue and decode (the kept axes' layout: indexing.hpp), arrays
## (how many array arguments), args (each argument as [is an array, name]), reduced_ndim, group,
## vector (items per 16-byte load, 0: none), vector_item (their C type), from_partials,
## lanes_in_order (lane 0 combines the lanes in order: CPU devices), store (the result's store line,
## or none for the partial results), combine (the pieces combined in this kernel, below),
## global_fence (the device-wide fence of the combine through OpenCL), combine_decode (the
## result's offset for output `oc`), barriers_in_branches (the device runs a group's work items
## together, so barriers may sit in a branch the whole group takes), shuffles (how warps of 32
## shuffle, or empty: lanes_combined).
##
## One element into accumulator `target` at reduced position `e`: its position decoded over the
## reduced axes (rn<d>: their extents, a<k>_rs<d>: array k's strides), then mapped and reduced.
<%def name="element(target, e)">\
        { const ${idx} e = ${e};
% if from_partials:
          ${target} = kjarni_reduce(${target}, partial[e * n_out + o]); }
% else:
%   for a in range(arrays):
          ${idx} a${a}_r = 0;
%   endfor
          ${idx} rest = e;
%   for d in reversed(range(reduced_ndim)):
%     if d == 0:
%       for a in range(arrays):
          a${a}_r += rest * a${a}_rs0;
%       endfor
%     else:
          { const ${idx} c = rest % rn${d}; rest /= rn${d};
%       for a in range(arrays):
            a${a}_r += c * a${a}_rs${d};
%       endfor
          }
%     endif
%   endfor
          ${target} = kjarni_reduce(${target}, kjarni_map(e${''.join(', %s_base + (%s_o + %s_r - e)' % (a, a, a) if p else ', ' + a for p, a in args)})); }
% endif
</%def>\
## The `lanes` accumulators `a` of an output (work item `lane` of them) combined into lane 0's.
## On a CPU device (lanes_in_order) lane 0 takes them in order after one barrier that every work
## item reaches unconditionally: a CPU runs the group's work items in turn anyway, and PoCL's kernel
## compiler takes about twice as long over the whole kernel for a barrier inside a loop (the tree)
## or under a condition (0.7-0.8 against 0.4 s, PoCL 3.1). Where warps of 32 can shuffle
## (`shuffles`), each warp combines its lanes by shuffles (halves of 16 down to 1), warp leaders
## leave their results in `scratch`, and after one barrier the first warp of each output combines
## those the same way (CUB's order: one barrier in place of the tree's log2(lanes)). Elsewhere they
## combine in a fixed tree through `scratch` (`lanes` is the same for the whole launch, so every
## work item reaches the same barriers). `cond` (empty, or a condition ending in &&) predicates the
## work where work items that have none must still reach the barriers.
<%def name="lanes_combined(a, lanes, lane, cond='')">\
% if lanes_in_order:
    scratch[lid] = ${a};
    LOCAL_BARRIER;
    if (${cond}${lane} == 0)
        for (${idx} k = 1; k < ${lanes}; ++k) ${a} = kjarni_reduce(${a}, scratch[lid + k]);
% elif shuffles:
    if (${lanes} > 1) {
${warp_combined(a, lanes + ' < 32 ? ' + lanes + ' : 32')}\
        if (${lanes} > 32) {
            if (lid % 32 == 0) scratch[lid / 32] = ${a};
            LOCAL_BARRIER;
            if (${lane} < ${lanes} / 32) ${a} = scratch[(lid - ${lane}) / 32 + ${lane}];
${warp_combined(a, lanes + ' / 32')}\
        }
    }
% else:
    if (${lanes} > 1) {
        scratch[lid] = ${a};
        LOCAL_BARRIER;
        for (${idx} kj_half = ${lanes} / 2; kj_half > 0; kj_half >>= 1) {
            if (${cond}${lane} < kj_half) scratch[lid] = kjarni_reduce(scratch[lid], scratch[lid + kj_half]);
            LOCAL_BARRIER;
        }
        ${a} = scratch[lid];
    }
% endif
</%def>\
## The warp operations of `shuffles`: kjarni_warp_combined combines the lanes of runs of `width` (a
## power of two up to 32, aligned in the warp) into each run's first, by halves. Every lane of the
## warp takes part; lanes whose partner is past the run compute what no one reads. "native":
## CUDA's intrinsics, an accumulator shuffled 32 bits at a time (memcpy: an accumulator type may
## have constructors that a union does not take), and elsewhere KJARNI_EMULATED_WARPS: the same
## halves through `scratch` with 32 consecutive work items as a warp, which CPU devices run where
## tests force it (force_lane_shuffles). "ptx": PTX through NVIDIA's OpenCL. warp_combined writes
## one warp combine either way, the emulation into the kernel, a barrier first (as `scratch` may be
## in use), not into a function taking `scratch`: PoCL 3.1 gave wrong sums about one run in eight
## that way with several threads (never with POCL_MAX_PTHREAD_COUNT=1), as if groups shared the array.
<%def name="warp_combined(a, width)">\
#ifdef KJARNI_EMULATED_WARPS
        LOCAL_BARRIER;
        scratch[lid] = ${a};
        LOCAL_BARRIER;
        for (${idx} kj_h = (${width}) / 2; kj_h > 0; kj_h >>= 1) {
            if (lid % (${width}) < kj_h) scratch[lid] = kjarni_reduce(scratch[lid], scratch[lid + kj_h]);
            LOCAL_BARRIER;
        }
        ${a} = scratch[lid];
#else
        ${a} = kjarni_warp_combined(${a}, ${width});
#endif
</%def>\
<%def name="warp_functions()">\
<% words = '(int)((sizeof(KJARNI_ACC) + 3) / 4)' %>\
% if shuffles == 'ptx':
FUNCTION INLINE uint32_t kjarni_word_shfl_down(uint32_t v, uint32_t d) {
    uint32_t r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(d));
    return r;
}
FUNCTION INLINE KJARNI_ACC kjarni_acc_shfl_down(KJARNI_ACC value, uint32_t d) {
    union { KJARNI_ACC acc; uint32_t bits[(sizeof(KJARNI_ACC) + 3) / 4]; } u;
    u.acc = value;
    for (int w = 0; w < ${words}; ++w) u.bits[w] = kjarni_word_shfl_down(u.bits[w], d);
    return u.acc;
}
% else:
#ifdef KJARNI_CUDA_API
FUNCTION INLINE KJARNI_ACC kjarni_acc_shfl_down(KJARNI_ACC value, uint32_t d) {
    uint32_t bits[(sizeof(KJARNI_ACC) + 3) / 4] = {0};
    memcpy(bits, &value, sizeof(KJARNI_ACC));
    for (int w = 0; w < ${words}; ++w) bits[w] = __shfl_down_sync(0xFFFFFFFFu, bits[w], d);
    memcpy(&value, bits, sizeof(KJARNI_ACC));
    return value;
}
#else
#define KJARNI_EMULATED_WARPS
#endif
% endif
#ifndef KJARNI_EMULATED_WARPS
FUNCTION INLINE KJARNI_ACC kjarni_warp_combined(KJARNI_ACC a, ${idx} width) {
    for (${idx} h = width / 2; h > 0; h >>= 1) a = kjarni_reduce(a, kjarni_acc_shfl_down(a, (uint32_t)h));
    return a;
}
#endif
</%def>\
## The pieces combined in the first pass's kernel, for a launch of one group along the outputs
## (every output's pieces are then in that column): every group's partial results are in memory
## behind a device-wide fence (KJARNI_PARTIALS_FENCE; through OpenCL, global_fence: see
## device_wide_fence in algorithms/device_code.hpp) before its work item 0 counts the group
## (kj_done[0], left at zero by the queue's kernels: algorithms/queue_scratch.hpp); the group that
## brings the count to the number of groups fences again (its loads come after the count), and
## combines the partial results as the second pass would (combine_lanes lanes per output, 4
## accumulators each, the same tree): the result has the same bits as with two kernels. It then
## sets the counter back to zero. On NVIDIA GPUs of compute capability 7.0 and later (CUDA, or
## PTX through NVIDIA's OpenCL: count_acq_rel) one acquire-release count replaces fence, count and
## fence: its release carries the partial results
## the barrier ordered before it, its acquire gives the last group's loads after the next barrier
## every other group's (the PTX memory model's release and acquire patterns through bar.sync;
## whole float32 sum at 1 MiB on an H200 4.12 -> 3.83 us a call, bench/cuda/whole_sum_probe.cu,
## where CUB's two kernels take 4.08). Where the device does not run a group's work items together,
## every group takes the barriers (a compiler that loops over the work items cannot see that
## kj_last is the same for the whole group).
<%def name="combine_pieces()">\
<% cond = '' if barriers_in_branches else 'kj_last && ' %>\
    KJARNI_PARTIALS_FENCE;
    LOCAL_MEM_DECL int kj_last;
    LOCAL_BARRIER;
    if (lid == 0) {
        kj_last = KJARNI_COUNT_GROUP(kj_done) == (unsigned int)get_num_groups(1) - 1u;
        if (kj_last) KJARNI_LAST_FENCE;
    }
    LOCAL_BARRIER;
% if barriers_in_branches:
    if (kj_last) {
% else:
    {
% endif
        const ${idx} kj_pieces = (${idx})get_num_groups(1);
        const ${idx} kj_lane = lid % combine_lanes;
        const ${idx} oc = lid / combine_lanes;
        const int kj_mine = oc < n_out;
        KJARNI_ACC kj_acc = kjarni_neutral();
        if (${cond}kj_mine) {
% for j in range(1, 4):
            KJARNI_ACC kj_acc${j} = kjarni_neutral();
% endfor
            ${idx} r = kj_lane;
            for (; kj_pieces - r > 3 * combine_lanes; r += 4 * combine_lanes) {
% for j in range(4):
                kj_acc${j if j else ''} = kjarni_reduce(kj_acc${j if j else ''}, partial[(r + ${j} * combine_lanes) * n_out + oc]);
% endfor
            }
            for (; r < kj_pieces; r += combine_lanes) kj_acc = kjarni_reduce(kj_acc, partial[r * n_out + oc]);
            kj_acc = kjarni_reduce(kjarni_reduce(kj_acc, kj_acc1), kjarni_reduce(kj_acc2, kj_acc3));
        }
${lanes_combined('kj_acc', 'combine_lanes', 'kj_lane', cond)}\
        if (${cond}kj_lane == 0 && kj_mine) {
            const KJARNI_ACC acc = kj_acc;
${combine_decode}\
${store}\
        }
        if (${cond}lid == 0) kj_done[0] = 0u;
    }
</%def>\
${helpers}#define KJARNI_ACC ${acc}
#define KJARNI_IDX ${idx}
% if combine and count_acq_rel:
#ifdef KJARNI_CUDA_API
FUNCTION INLINE unsigned int kjarni_count_group(unsigned int* p) {
    unsigned int before;
    asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(p) : "memory");
    return before;
}
#else
FUNCTION INLINE unsigned int kjarni_count_group(GLOBAL_MEM unsigned int* p) {
    unsigned int before;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"((ulong)p) : "memory");
    return before;
}
#endif
#define KJARNI_PARTIALS_FENCE
#define KJARNI_COUNT_GROUP(p) kjarni_count_group(p)
#define KJARNI_LAST_FENCE
% elif combine:
#ifdef KJARNI_CUDA_API
#define KJARNI_PARTIALS_FENCE __threadfence()
#define KJARNI_COUNT_GROUP(p) atomicAdd((p), 1u)
#define KJARNI_LAST_FENCE __threadfence()
#else
#define KJARNI_PARTIALS_FENCE ${global_fence}
#define KJARNI_COUNT_GROUP(p) atomic_inc((p))
#define KJARNI_LAST_FENCE ${global_fence}
#endif
% endif
${code}${warp_functions() if shuffles else ''}${value_code if vector else ''}KERNEL void kjarni_reduction(GLOBAL_MEM ${result}* res_base, GLOBAL_MEM KJARNI_ACC* partial, ${idx} n_out, ${idx} n_red, ${idx} step, int64_t count, ${idx} lanes${', GLOBAL_MEM unsigned int* kj_done, %s combine_lanes' % idx if combine else ''}${params}${index_params})
{
${prologue}\
    const ${idx} lid = (${idx})get_local_id(0);
    const ${idx} lane = lid % lanes;
    const ${idx} o = (${idx})get_group_id(0) * (${group} / lanes) + lid / lanes;
    const ${idx} p = (${idx})get_group_id(1);
    KJARNI_ACC acc = kjarni_neutral();
## (decoded for every work item: those past n_out compute offsets they never use)
${decode}\
    if (o < n_out) {
% for j in range(1, 4):
        KJARNI_ACC acc${j} = kjarni_neutral();
% endfor
## Piece p's runs of `lanes` elements are p, p + pieces, ...: step = pieces * lanes.
        ${idx} r = p * lanes + lane;
% if vector:
## One 16-byte load per step (the run of elements is contiguous and 16-byte aligned): its items go
## to the accumulators in turn; r, lanes and step count vectors here. Four steps' loads are issued
## before any is used, not one dependent round trip to memory after another (an H200's 1 MiB float32
## sum, 8 loads a work item: 4.32 -> 4.16 us; CUB's two kernels take 2.4 us, the rest of the gap is
## elsewhere).
        union { uint4 v; ${vector_item} e[${vector}]; } w[4];
        GLOBAL_MEM const uint4* const av = (GLOBAL_MEM const uint4*)(a0_base + a0_o);
        const ${idx} kj_vectors = n_red / ${vector};
        for (; kj_vectors - r > 3 * step; r += 4 * step) {
%   for u in range(4):
            w[${u}].v = av[r + ${u} * step];
%   endfor
%   for u in range(4):
%     for j in range(vector):
<% target = 'acc' if j % 4 == 0 else 'acc%d' % (j % 4) %>\
            ${target} = kjarni_reduce(${target}, kjarni_map_value(w[${u}].e[${j}]));
%     endfor
%   endfor
        }
        for (; r < kj_vectors; r += step) {
            w[0].v = av[r];
%   for j in range(vector):
<% target = 'acc' if j % 4 == 0 else 'acc%d' % (j % 4) %>\
            ${target} = kjarni_reduce(${target}, kjarni_map_value(w[0].e[${j}]));
%   endfor
        }
% else:
        for (; n_red - r > 3 * step; r += 4 * step) {
%   for j in range(4):
${element('acc' if j == 0 else 'acc%d' % j, 'r + %d * step' % j)}\
%   endfor
        }
        for (; r < n_red; r += step) {
${element('acc', 'r')}\
        }
% endif
        acc = kjarni_reduce(kjarni_reduce(acc, acc1), kjarni_reduce(acc2, acc3));
    }
    LOCAL_MEM_DECL KJARNI_ACC scratch[${group}];
${lanes_combined('acc', 'lanes', 'lane')}\
    if (lane == 0 && o < n_out) {
% if store is None or combine:
        partial[p * n_out + o] = acc;
% else:
${store}\
% endif
    }
% if combine:
${combine_pieces()}\
% endif
}
