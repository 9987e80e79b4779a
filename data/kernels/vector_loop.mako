## The body of a kernel over `n` elements in vectors of `v` elements (device_code.hpp's vector_loop
## says what it promises; it renders this file's top level, expression.mako imports the def).
## `arrays`: one dict per array (base, off, step: names of kernel values; ctype, vtype: the C types
## of an element and of a vector; load, store: whether it is read, written as vectors). `element`
## and `tail`: code, as text or as a def to call.
## A work group's round covers `unroll` * local size consecutive vectors (work item l takes vectors
## l, l + local size, ...): each warp load stays coalesced, and a group's loads stay within one
## stretch of memory instead of `unroll` stretches a whole grid apart (H100, 2 GiB float32, 4
## vectors a round: y = 2x 2.98 -> 3.02 TB/s, a + b 3.04 -> 3.07).
## The grid-stride loops stay rolled (`#pragma unroll 1`; a compiler that does not know it ignores
## it, as C says of unknown pragmas): a GPU grid covers the array, so a work item takes one round,
## and a compiler that unrolls the loop by four first divides to count the rounds and carries four
## copies of the body (an H200, float32 y = 2x, the loop as generated against the same loop rolled,
## probe of 2026-12-02: 4 MiB 3.27 -> 2.87 us, 1 MiB 2.16 -> 2.03 us; a + b 4 MiB 3.25 -> 3.06 us;
## 64 MiB alike).
<%def name="vector_loop(arrays, v, idx, unroll, element, tail)">\
#define KJ_UNROLL ${unroll}
% for k, a in enumerate(arrays):
    union { ${a['vtype']} v; ${a['ctype']} e[${v}]; } kj_l${k}[KJ_UNROLL];
% endfor
    const ${idx} kj_vectors = n / ${v};
    const ${idx} kj_local = (${idx})get_local_size(0);
    const ${idx} kj_round = (${idx})get_num_groups(0) * KJ_UNROLL * kj_local;
#pragma unroll 1
    for (${idx} kj_first = (${idx})get_group_id(0) * KJ_UNROLL * kj_local + (${idx})get_local_id(0); kj_first < kj_vectors;
         kj_first += kj_round) {
        for (int kj_u = 0; kj_u < KJ_UNROLL; ++kj_u) {
            const ${idx} kj_j = kj_first + kj_u * kj_local;
            if (kj_j < kj_vectors) {
% for k, a in enumerate(arrays):
%   if a['load']:
            if (${a['step']} != 0) kj_l${k}[kj_u].v = ((GLOBAL_MEM const ${a['vtype']}*)(${a['base']} + ${a['off']}))[kj_j];
%   endif
% endfor
            }
        }
        for (int kj_u = 0; kj_u < KJ_UNROLL; ++kj_u) {
            const ${idx} kj_j = kj_first + kj_u * kj_local;
            if (kj_j >= kj_vectors) break;
            for (int kj_q = 0; kj_q < ${v}; ++kj_q) {
${element() if callable(element) else element}\
            }
% for k, a in enumerate(arrays):
%   if a['store']:
            ((GLOBAL_MEM ${a['vtype']}*)(${a['base']} + ${a['off']}))[kj_j] = kj_l${k}[kj_u].v;
%   endif
% endfor
        }
    }
#undef KJ_UNROLL
    const ${idx} start = kj_vectors * ${v} + (${idx})get_global_id(0);
${tail() if callable(tail) else tail}\
</%def>\
${vector_loop(arrays, v, idx, unroll, element, tail)}\
