## The CPU form of the scan engine (src/algorithms/scan_cpu.cpp explains the three kernels; its
## kernel_source gives the globals): the rows are cut into units (a row, or a piece of it), each
## work item walks whole units in order.
##   totals   each unit's total (a commutative scan over `lanes` independent lanes)
##   carries  per row, the pieces' totals turned into exclusive carries, and the row's total
##   scan     each unit from its carry (`carried`) or from the neutral item, through kjarni_output
## Globals: helpers, item, code, mode, commutative, carried, lanes, params (the arguments' kernel
## parameters), index_params, prologue, decode (the rows' layout), arrays (how many array
## arguments), shifted (every argument as the calls take it, arrays at position e),
## bounds_rows and bounds_units (cpu_run_bounds over the rows and over the units).
## (halves: the lanes' tree, lanes / 2, lanes / 4, ..., 1)
<%
    input = 'kjarni_input(e' + shifted + ')'
    halves = []
    h = lanes // 2
    while h > 0:
        halves.append(h)
        h = h // 2
%>\
${helpers}#define KJARNI_ITEM ${item}
#define KJARNI_IDX int64_t
${code}\
KERNEL void kjarni_scan_cpu(GLOBAL_MEM KJARNI_ITEM* partial, GLOBAL_MEM KJARNI_ITEM* totals, int64_t n_rows, int64_t length, int64_t pieces, int64_t chunk\
% if mode == 'carries':
)
{
${bounds_rows}\
    for (int64_t row = kj_begin; row < kj_end; ++row) {
        KJARNI_ITEM carry = kjarni_neutral();
        for (int64_t p = 0; p < pieces; ++p) {
            const KJARNI_ITEM t = partial[row * pieces + p];
            partial[row * pieces + p] = carry;
            carry = kjarni_scan_op(carry, t);
        }
        totals[row] = carry;
    }
}
% else:
${params}${index_params}${''.join(', int64_t a%d_ls' % j for j in range(arrays))})
{
${prologue}${bounds_units}\
    for (int64_t kj_unit = kj_begin; kj_unit < kj_end; ++kj_unit) {
        const int64_t row = kj_unit / pieces;
${decode}\
        const int64_t begin = (kj_unit % pieces) * chunk;
        const int64_t end = begin + chunk < length ? begin + chunk : length;
%   if mode == 'totals' and commutative:
## Separate variables (a private array indexed in a loop is not vectorised): `lanes` independent
## chains of consecutive loads, which the SLP vectoriser packs.
%     for q in range(lanes):
        KJARNI_ITEM kj_l${q} = kjarni_neutral();
%     endfor
        int64_t kj_e = begin;
        for (; end - kj_e >= ${lanes}; kj_e += ${lanes}) {
%     for q in range(lanes):
            { const int64_t e = kj_e + ${q}; kj_l${q} = kjarni_scan_op(kj_l${q}, ${input}); }
%     endfor
        }
        for (int64_t e = kj_e; e < end; ++e) kj_l0 = kjarni_scan_op(kj_l0, ${input});
%     for h in halves:
%       for q in range(h):
        kj_l${q} = kjarni_scan_op(kj_l${q}, kj_l${q + h});
%       endfor
%     endfor
        partial[kj_unit] = kj_l0;
%   elif mode == 'totals':
        KJARNI_ITEM acc = kjarni_neutral();
        for (int64_t e = begin; e < end; ++e) acc = kjarni_scan_op(acc, ${input});
        partial[kj_unit] = acc;
%   else:
        KJARNI_ITEM acc = ${'partial[kj_unit]' if carried else 'kjarni_neutral()'};
        const KJARNI_ITEM last = ${'totals[row]' if carried else 'kjarni_neutral()'};
        for (int64_t e = begin; e < end; ++e) {
            const KJARNI_ITEM item = kjarni_scan_op(acc, ${input});
            kjarni_output(e, item, acc, last${shifted});
            acc = item;
        }
%   endif
    }
}
% endif
