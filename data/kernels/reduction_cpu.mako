## The CPU form of the reduction engine (src/algorithms/reduction_cpu.cpp explains the pairwise
## folds and their rounding bound; its kernel_source gives the globals): units are (output, piece)
## pairs, or in the second kernel (from_partials) outputs, each folded by one work item.
## Globals: helpers, acc, result (C types), code (reduction_code's functions), params (the
## arguments' kernel parameters), index_params, prologue, decode (the kept axes' layout), bounds
## (cpu_run_bounds over the units), call (kjarni_map of element kj_j), lanes, block, stack_levels,
## vector_op (a float sum's or product's operator, to fold as OpenCL vectors; None: scalar lanes),
## vector_row (that array's row), from_partials, store (the result's store line, or None for the
## partial values).
## The statements that fold the values `value` (of index kj_j, from `from_` below `to`) into
## `KJARNI_ACC acc` pairwise; `blocked`: in blocks of `block` over the lanes (as OpenCL vectors where
## `vector_op` is given: the lanes are one vector of 16 accumulators, loaded 16 elements at a time,
## combined as the scalar lanes are, lane q with q + 8, then q + 4, ...: the same values in the same
## order; CUDA, which never runs a CPU form but compiles every source in the test suite's
## cross-check, takes the scalar lanes). The scalar lanes are separate variables (a private array
## indexed in a loop is not vectorised): 16 independent chains of consecutive loads, which an SLP
## vectoriser may pack (PoCL 3.1 packs the loads only; float sums take the vectors). A finished
## block joins a stack of partial sums (binary counter); the earliest blocks sit highest and are
## folded from there down.
<%def name="pairwise_fold(blocked, from_, to, value, vector_op)">\
## (halves: the lanes' tree, lanes / 2, lanes / 4, ..., 1)
<%
    halves = []
    h = lanes // 2
    while h > 0:
        halves.append(h)
        h = h // 2
%>\
        KJARNI_ACC kj_stack[${stack_levels}];
        int64_t kj_blocks = 0;
% if blocked and vector_op is not None:
#ifdef KJARNI_OPENCL_API
        for (int64_t kj_b = ${from_}; kj_b < ${to}; kj_b += ${block}) {
            ${acc}16 kj_lv = (${acc}16)(kjarni_neutral());
            const int64_t kj_stop = kj_b + ${block} < ${to} ? kj_b + ${block} : ${to};
            int64_t kj_k = kj_b;
            for (; kj_stop - kj_k >= ${lanes}; kj_k += ${lanes})
                kj_lv = kj_lv ${vector_op} convert_${acc}16(vload16(0, ${vector_row} + kj_k));
            for (int64_t kj_j = kj_k; kj_j < kj_stop; ++kj_j) {
                KJARNI_ACC* const kj_lane = (KJARNI_ACC*)&kj_lv + (kj_j - kj_k);
                *kj_lane = *kj_lane ${vector_op} (${acc})(${vector_row}[kj_j]);
            }
            const ${acc}8 kj_l8 = kj_lv.lo ${vector_op} kj_lv.hi;
            const ${acc}4 kj_l4 = kj_l8.lo ${vector_op} kj_l8.hi;
            const ${acc}2 kj_l2 = kj_l4.lo ${vector_op} kj_l4.hi;
            KJARNI_ACC kj_s = kj_l2.x ${vector_op} kj_l2.y;
#else
% endif
% if blocked:
        for (int64_t kj_b = ${from_}; kj_b < ${to}; kj_b += ${block}) {
%   for q in range(lanes):
            KJARNI_ACC kj_l${q} = kjarni_neutral();
%   endfor
            const int64_t kj_stop = kj_b + ${block} < ${to} ? kj_b + ${block} : ${to};
            int64_t kj_k = kj_b;
            for (; kj_stop - kj_k >= ${lanes}; kj_k += ${lanes}) {
%   for q in range(lanes):
                { const int64_t kj_j = kj_k + ${q}; kj_l${q} = kjarni_reduce(kj_l${q}, ${value}); }
%   endfor
            }
%   for q in range(lanes):
            if (kj_k + ${q} < kj_stop) { const int64_t kj_j = kj_k + ${q}; kj_l${q} = kjarni_reduce(kj_l${q}, ${value}); }
%   endfor
%   for h in halves:
%     for q in range(h):
            kj_l${q} = kjarni_reduce(kj_l${q}, kj_l${q + h});
%     endfor
%   endfor
            KJARNI_ACC kj_s = kj_l0;
%   if vector_op is not None:
#endif
%   endif
% else:
        for (int64_t kj_j = ${from_}; kj_j < ${to}; ++kj_j) {
            KJARNI_ACC kj_s = ${value};
% endif
            int kj_level = 0;
            for (int64_t kj_c = kj_blocks; (kj_c & 1) != 0; kj_c >>= 1) kj_s = kjarni_reduce(kj_stack[kj_level++], kj_s);
            kj_stack[kj_level] = kj_s;
            ++kj_blocks;
        }
        KJARNI_ACC acc = kjarni_neutral();
        for (int kj_level = ${stack_levels - 1}; kj_level >= 0; --kj_level)
            if (((kj_blocks >> kj_level) & 1) != 0) acc = kjarni_reduce(acc, kj_stack[kj_level]);
</%def>\
${helpers}#define KJARNI_ACC ${acc}
#define KJARNI_IDX int64_t
${code}KERNEL void kjarni_reduction_cpu(GLOBAL_MEM ${result}* res_base, GLOBAL_MEM KJARNI_ACC* partial, int64_t n_out, int64_t n_red, int64_t pieces, int64_t chunk, int64_t count${params}${index_params})
{
${prologue}${bounds}\
    for (int64_t kj_unit = kj_begin; kj_unit < kj_end; ++kj_unit) {
% if from_partials:
        const int64_t o = kj_unit;
${decode}\
${pairwise_fold(False, '0', 'pieces', 'partial[o * pieces + kj_j]', None)}\
% else:
        const int64_t o = kj_unit / pieces;
${decode}\
        const int64_t kj_from = (kj_unit % pieces) * chunk;
        const int64_t kj_to = kj_from + chunk < n_red ? kj_from + chunk : n_red;
${pairwise_fold(True, 'kj_from', 'kj_to', call, vector_op)}\
% endif
% if store is None:
        partial[kj_unit] = acc;
% else:
${store}\
% endif
    }
}
