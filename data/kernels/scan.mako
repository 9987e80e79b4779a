## The kernels of the scan engine (src/algorithms/scan_engine.cpp explains the strategies; its
## kernel_source gives the globals). One kernel per mode:
##   sequential    one work item per row walks it in order
##   chunk_totals  kernel 1 of the tiled strategy: each (row, chunk) group stores its chunk's total
##   carries       kernel 2: one work item per row turns the totals into exclusive carries
##   chunk_scan    kernel 3: each (row, chunk) group scans its chunk from the chunk's carry
##   lookback      the single pass: a tile per group, its prefix from its predecessors' totals
## Globals: helpers (the algorithm prelude), item, idx (C types), code (scan_code's functions),
## mode, status_words, fan (the look-back's fan-out), params (the kernel parameters of the
## arguments), index_params, prologue and decode (the rows' layout: indexing.hpp), arrays (how many
## array arguments), args (each argument as [is an array, name]), items, group, commutative,
## prefetch, uses_last_item, barriers_in_branches, unit_axis (every array steps by one element along
## the axis).
##
## Every array shifted to the element at position `e` of its row, as the arguments of a call.
## Where every array steps by one element along the axis (unit_axis), the shift is the row's
## offset alone: no multiplication per position, and the compiler sees consecutive addresses.
<%def name="shifted(e)">${''.join((', %s_base + %s_o' % (a, a) if unit_axis else ', %s_base + (%s_o + (%s) * %s_ls - (%s))' % (a, a, e, a, e)) if p else ', ' + a for p, a in args)}</%def>\
<%def name="input(e)">kjarni_input(${e}${shifted(e)})</%def>\
<%def name="output(e, item, prev, last)">kjarni_output(${e}, ${item}, ${prev}, ${last}${shifted(e)});</%def>\
## A work group's (row, piece), its arrays' offsets and the scratch of its work items' totals. The
## single pass takes tiles in the order groups start (a ticket), not by group id.
<%def name="group_of_chunk()">\
    const ${idx} lid = (${idx})get_local_id(0);
<% tile_id = 'ticket' if mode == 'lookback' else 'get_group_id(0)' %>\
% if mode == 'lookback':
    LOCAL_MEM_DECL unsigned int kjarni_ticket;
    if (lid == 0) {
        kjarni_ticket = KJARNI_TAKE_TICKET(partial);
        // Every other group has taken its ticket: the counter starts again from zero for the
        // queue's next single pass (no fill between them).
        if (kjarni_ticket == (unsigned int)(n_rows * pieces) - 1u) *(volatile GLOBAL_MEM unsigned int*)partial = 0u;
    }
    LOCAL_BARRIER;
    const ${idx} ticket = (${idx})kjarni_ticket;
% endif
    const ${idx} row = (${idx})${tile_id} / pieces;
    const ${idx} piece = (${idx})${tile_id} % pieces;
${decode}\
    LOCAL_MEM_DECL KJARNI_ITEM scratch[${group}];
</%def>\
<%def name="chunk_bounds()">\
    const ${idx} begin = piece * chunk;
    const ${idx} end = length - begin < chunk ? length : begin + chunk;
</%def>\
## Pieces of a tile's code both tiled kernels share, at indentation `ind`: reading the tile into the
## stage (coalesced), each work item's scan of its `items` positions in the stage, and adding
## `prefix` to them and writing them out through output_statement (coalesced).
## A whole tile (every tile of a row but its last) is read and written without a bound check per
## position: the branch is the same for the whole group.
<%def name="read_tile(ind)">\
${ind}if (end - tile >= ${group * items}) {
${ind}    for (int j = 0; j < ${items}; ++j) {
${ind}        const ${idx} q = j * ${group} + lid;
${ind}        stage[KJARNI_PAD(q)] = ${input('tile + q')};
${ind}    }
${ind}} else {
${ind}    for (int j = 0; j < ${items}; ++j) {
${ind}        const ${idx} q = j * ${group} + lid;
${ind}        stage[KJARNI_PAD(q)] = tile + q < end ? ${input('tile + q')} : kjarni_neutral();
${ind}    }
${ind}}
${ind}LOCAL_BARRIER;
</%def>\
<%def name="scan_own_items(ind, keep)">\
${ind}KJARNI_ITEM run = kjarni_neutral();
${ind}for (int j = 0; j < ${items}; ++j) {
${ind}    const ${idx} q = lid * ${items} + j;
${ind}    run = kjarni_scan_op(run, stage[KJARNI_PAD(q)]);
% if keep:
${ind}    stage[KJARNI_PAD(q)] = run;
% endif
${ind}}
</%def>\
<%def name="write_tile(ind)">\
${ind}for (int j = 0; j < ${items}; ++j) {
${ind}    const ${idx} q = lid * ${items} + j;
${ind}    stage[KJARNI_PAD(q)] = kjarni_scan_op(prefix, stage[KJARNI_PAD(q)]);
${ind}}
${ind}LOCAL_BARRIER;
${ind}const int whole = end - tile >= ${group * items};
${ind}for (int j = 0; j < ${items}; ++j) {
${ind}    const ${idx} q = j * ${group} + lid;
${ind}    if (whole || tile + q < end) {
${ind}        const KJARNI_ITEM item = stage[KJARNI_PAD(q)];
${ind}        const KJARNI_ITEM prev = q > 0 ? stage[KJARNI_PAD(q - 1)] : carry;
${ind}        ${output('tile + q', 'item', 'prev', 'last')}
${ind}    }
${ind}}
</%def>\
## The work items' totals (`run`) scanned in `scratch`: inclusive Hillis-Steele, the left operand
## first.
<%def name="scan_totals(ind)">\
${ind}scratch[lid] = run;
${ind}LOCAL_BARRIER;
${ind}for (${idx} offset = 1; offset < ${group}; offset <<= 1) {
${ind}    const KJARNI_ITEM left = lid >= offset ? scratch[lid - offset] : kjarni_neutral();
${ind}    LOCAL_BARRIER;
${ind}    if (lid >= offset) scratch[lid] = kjarni_scan_op(left, scratch[lid]);
${ind}    LOCAL_BARRIER;
${ind}}
</%def>\
## The single pass's look-back, run once the tile's own scan has given its total (`aggregate`, an
## expression every work item can read); it sets `carry` to the combination of every earlier tile
## of the row. The tiles of a row form blocks of F = `fan` tiles and superblocks of F blocks. A tile
## publishes its aggregate at once; the last tile of a block publishes the block's total as soon as
## the block's earlier aggregates are in (before it waits for the earlier blocks' totals: waiting
## first chained the blocks, one global round trip each, most of a 16 MiB cumsum's time on the
## H200); the last tile of a superblock publishes the prefix of the next superblock (everything
## before it). A tile's prefix
## is (superblock prefix + the earlier block totals of its superblock) + the earlier aggregates of
## its block, each sum over a fixed tree of F slots: every value is the same function of the input
## whoever computes it and whenever, so the result has the same bits on every run for any
## associative scan_expr, floats included (decoupled look-back's grouping depends on timing). Only
## the superblock prefixes form a chain (one link per F * F tiles). A tile waits only for tiles of
## smaller tickets, whose groups have started.
## The status slots: every tile's total, then every block's, then every superblock's prefix. The
## earlier aggregates of the block and block totals of the superblock are each summed over the same
## fixed tree of F slots in local memory (neighbours first, then pairs of pairs, ...; empty slots
## neutral). (CUDA warp shuffles in place of local memory, here and for the work items' totals,
## were measured slower on the H100: cumsum of 2^28 int32 2253 against 2384 GB/s, int32 into int64
## 1145 against 1810.)
<%def name="lookback(aggregate)">\
    const ${idx} blocks = (pieces + ${fan - 1}) / ${fan}, supers = (blocks + ${fan - 1}) / ${fan};
    volatile GLOBAL_MEM uint64_t* kjarni_status = (volatile GLOBAL_MEM uint64_t*)partial + 2;
    const ${idx} tile_slots = row * pieces, block_slots = n_rows * pieces + row * blocks,
        super_slots = n_rows * pieces + n_rows * blocks + row * supers;
    LOCAL_MEM_DECL KJARNI_ITEM kjarni_look[${2 * fan}];
    LOCAL_MEM_DECL KJARNI_ITEM kjarni_prefix;
    const KJARNI_ITEM aggregate = ${aggregate};
    const ${idx} block = piece / ${fan}, in_block = piece % ${fan}, super = block / ${fan}, in_super = block % ${fan};
    if (lid == 0) kjarni_publish(KJARNI_SLOT(tile_slots + piece), aggregate, epoch);
    // A block's last tile sums its block's earlier aggregates and publishes the block's total before
    // it waits for the earlier blocks' totals; every other tile waits for both at once (one tree
    // over both halves of kjarni_look: the extra tree's barriers cost 3% at 2 GiB). The branch is
    // the same for the whole group.
## barriers_in_branches is false where the device does not run a group's work items together (the
## GPU form forced on a CPU device): a compiler that runs a group as loops over its work items
## cannot see that block_last is the same for the whole group, and PoCL hung on a barrier inside
## the branch. There the block's last tile's work item 0 sums the earlier blocks' totals over the
## same tree in the same order, after one more barrier for every tile (which cost GPUs 8-9% of a
## 256 MiB or 2 GiB cumsum on the H200, so they keep the branch).
    const int block_last = in_block == ${fan - 1};
    if (lid < ${fan}) kjarni_look[lid] = lid < in_block ? kjarni_wait_status(KJARNI_SLOT(tile_slots + piece - in_block + lid), epoch) : kjarni_neutral();
    if (!block_last && lid >= ${fan} && lid < ${2 * fan})
        kjarni_look[lid] = lid - ${fan} < in_super ? kjarni_wait_status(KJARNI_SLOT(block_slots + block - in_super + lid - ${fan}), epoch) : kjarni_neutral();
    LOCAL_BARRIER;
    for (int d = 1; d < ${fan}; d <<= 1) {
        if (lid < (block_last ? ${fan} : ${2 * fan}) && (lid & (2 * d - 1)) == 0) kjarni_look[lid] = kjarni_scan_op(kjarni_look[lid], kjarni_look[lid + d]);
        LOCAL_BARRIER;
    }
% if barriers_in_branches:
    if (block_last) {
        if (lid == 0) kjarni_publish(KJARNI_SLOT(block_slots + block), kjarni_scan_op(kjarni_look[0], aggregate), epoch);
        if (lid >= ${fan} && lid < ${2 * fan})
            kjarni_look[lid] = lid - ${fan} < in_super ? kjarni_wait_status(KJARNI_SLOT(block_slots + block - in_super + lid - ${fan}), epoch) : kjarni_neutral();
        LOCAL_BARRIER;
        for (int d = 1; d < ${fan}; d <<= 1) {
            if (lid >= ${fan} && lid < ${2 * fan} && (lid & (2 * d - 1)) == 0) kjarni_look[lid] = kjarni_scan_op(kjarni_look[lid], kjarni_look[lid + d]);
            LOCAL_BARRIER;
        }
    }
% else:
    if (block_last && lid == 0) kjarni_publish(KJARNI_SLOT(block_slots + block), kjarni_scan_op(kjarni_look[0], aggregate), epoch);
    if (block_last && lid >= ${fan} && lid < ${2 * fan})
        kjarni_look[lid] = lid - ${fan} < in_super ? kjarni_wait_status(KJARNI_SLOT(block_slots + block - in_super + lid - ${fan}), epoch) : kjarni_neutral();
    LOCAL_BARRIER;
% endif
    if (lid == 0) {
% if not barriers_in_branches:
        if (block_last) {
            for (int d = 1; d < ${fan}; d <<= 1)
                for (int j = ${fan}; j < ${2 * fan}; j += 2 * d) kjarni_look[j] = kjarni_scan_op(kjarni_look[j], kjarni_look[j + d]);
        }
% endif
        const KJARNI_ITEM before_super = super > 0 ? kjarni_wait_status(KJARNI_SLOT(super_slots + super), epoch) : kjarni_neutral();
        const KJARNI_ITEM found = kjarni_scan_op(kjarni_scan_op(before_super, kjarni_look[${fan}]), kjarni_look[0]);
        if (block_last && in_super == ${fan - 1} && super + 1 < supers)
            kjarni_publish(KJARNI_SLOT(super_slots + super + 1), kjarni_scan_op(found, aggregate), epoch);
        kjarni_prefix = found;
    }
    LOCAL_BARRIER;
    carry = kjarni_prefix;
</%def>\
<%
    write = mode in ('chunk_scan', 'lookback')
    stage_items = group * items + group * items // 32
%>\
${helpers}#define KJARNI_ITEM ${item}
#define KJARNI_IDX ${idx}
${code}\
% if mode == 'lookback':
## A published item is status_words status words, each 4 bytes of the item in its low half and the
## launch's epoch in its high half (any other value: nothing yet), written and read as one 64-bit
## word, so that a reader never sees a flag without its bytes and no fence is needed (each word is
## written once per launch); the ticket orders the tiles. The words of earlier launches carry
## their own epochs, so the status slots need no zeroing between launches (scan_engine.cpp).
#define KJARNI_STATUS_WORDS ${status_words}
typedef union { KJARNI_ITEM item; uint32_t bits[KJARNI_STATUS_WORDS]; } kjarni_item_bits;
FUNCTION INLINE void kjarni_publish(volatile GLOBAL_MEM uint64_t* slot, KJARNI_ITEM value, unsigned int epoch) {
    kjarni_item_bits u;
    u.item = value;
    for (int w = 0; w < KJARNI_STATUS_WORDS; ++w) slot[w] = ((uint64_t)epoch << 32) | (uint64_t)u.bits[w];
}
FUNCTION INLINE KJARNI_ITEM kjarni_wait_status(volatile GLOBAL_MEM uint64_t* slot, unsigned int epoch) {
    kjarni_item_bits u;
    for (int w = 0; w < KJARNI_STATUS_WORDS; ++w) {
        uint64_t x;
        do x = slot[w]; while ((unsigned int)(x >> 32) != epoch);
        u.bits[w] = (uint32_t)x;
    }
    return u.item;
}
#define KJARNI_SLOT(i) (kjarni_status + (i) * KJARNI_STATUS_WORDS)
#ifdef KJARNI_CUDA_API
#define KJARNI_TAKE_TICKET(p) atomicAdd((unsigned int*)(p), 1u)
#else
#define KJARNI_TAKE_TICKET(p) atomic_inc((volatile GLOBAL_MEM unsigned int*)(p))
#endif
% endif
## Kernel parameters: rows, row length, pieces, chunk (and the single pass's epoch), the temporaries,
## the arguments, layouts.
KERNEL void kjarni_scan(GLOBAL_MEM KJARNI_ITEM* partial, GLOBAL_MEM KJARNI_ITEM* totals, ${idx} n_rows, ${idx} length, ${idx} pieces, ${idx} chunk${', unsigned int epoch' if mode == 'lookback' else ''}\
% if mode == 'carries':
)
{
    const ${idx} row = (${idx})get_global_id(0);
    if (row >= n_rows) return;
    KJARNI_ITEM carry = kjarni_neutral();
    for (${idx} p = 0; p < pieces; ++p) {
        const KJARNI_ITEM t = partial[row * pieces + p];
        partial[row * pieces + p] = carry;
        carry = kjarni_scan_op(carry, t);
    }
    totals[row] = carry;
}
% else:
${params}${index_params}${''.join(', %s a%d_ls' % (idx, j) for j in range(arrays))})
{
${prologue}\
%   if mode == 'sequential':
    const ${idx} row = (${idx})get_global_id(0);
    if (row >= n_rows) return;
${decode}\
    KJARNI_ITEM last = kjarni_neutral();
%     if uses_last_item:
    for (${idx} e = 0; e < length; ++e) last = kjarni_scan_op(last, ${input('e')});
%     endif
    KJARNI_ITEM acc = kjarni_neutral();
    for (${idx} e = 0; e < length; ++e) {
        const KJARNI_ITEM item = kjarni_scan_op(acc, ${input('e')});
        ${output('e', 'item', 'acc', 'last')}
        acc = item;
    }
}
%   elif mode == 'chunk_totals' and commutative:
## The chunk's total in a fixed order that reads coalesced: work item `lid` sums positions lid,
## lid + group, ... with 4 accumulators, then the group combines its sums in a tree.
${group_of_chunk()}\
${chunk_bounds()}\
    KJARNI_ITEM acc0 = kjarni_neutral(), acc1 = kjarni_neutral(), acc2 = kjarni_neutral(), acc3 = kjarni_neutral();
    ${idx} e = begin + lid;
    for (; end - e > 3 * ${group}; e += 4 * ${group}) {
%     for j in range(4):
        acc${j} = kjarni_scan_op(acc${j}, ${input('e + %d * %d' % (j, group))});
%     endfor
    }
    for (; e < end; e += ${group}) acc0 = kjarni_scan_op(acc0, ${input('e')});
    scratch[lid] = kjarni_scan_op(kjarni_scan_op(acc0, acc1), kjarni_scan_op(acc2, acc3));
    LOCAL_BARRIER;
    for (${idx} step = ${group} / 2; step > 0; step >>= 1) {
        if (lid < step) scratch[lid] = kjarni_scan_op(scratch[lid], scratch[lid + step]);
        LOCAL_BARRIER;
    }
    if (lid == 0) partial[row * pieces + piece] = scratch[0];
}
%   elif mode == 'lookback':
## One tile per group, staged so that reads and writes are coalesced; each work item scans its
## positions in the stage, the group scans the work items' totals, the look-back finds the tile's
## prefix, and the positions go out through the stage again (last_item is not available here).
#define KJARNI_PAD(q) ((q) + (q) / 32)
${group_of_chunk()}\
    LOCAL_MEM_DECL KJARNI_ITEM stage[${stage_items}];
${chunk_bounds()}\
    const KJARNI_ITEM last = kjarni_neutral();
    const ${idx} tile = begin;
${read_tile('    ')}\
${scan_own_items('    ', True)}\
${scan_totals('    ')}\
    const KJARNI_ITEM before = lid > 0 ? scratch[lid - 1] : kjarni_neutral();
    const KJARNI_ITEM tile_total = scratch[${group - 1}];
    KJARNI_ITEM carry = kjarni_neutral();
${lookback('tile_total')}\
    const KJARNI_ITEM prefix = kjarni_scan_op(carry, before);
${write_tile('    ')}\
}
%   else:
## chunk_totals / chunk_scan: one work group per (row, piece). A tile is staged through local
## memory so that global reads and writes are coalesced (position q of the tile is read by work
## item q % group) while each work item scans `items` consecutive positions; a padding slot every
## 32 keeps those strided local accesses free of bank conflicts.
#define KJARNI_PAD(q) ((q) + (q) / 32)
${group_of_chunk()}\
    LOCAL_MEM_DECL KJARNI_ITEM stage[${stage_items}];
    KJARNI_ITEM carry = ${'partial[row * pieces + piece]' if write else 'kjarni_neutral()'};
%     if write:
    const KJARNI_ITEM last = totals[row];
%     endif
${chunk_bounds()}\
%     if prefetch:
## The next tile's positions are read into registers while this tile is scanned, so that a
## group's reads overlap its own work instead of waiting at the start of every tile.
    KJARNI_ITEM ahead[${items}];
    for (int j = 0; j < ${items}; ++j) {
        const ${idx} q = j * ${group} + lid;
        ahead[j] = begin + q < end ? ${input('begin + q')} : kjarni_neutral();
    }
%     endif
    for (${idx} tile = begin; tile < end; tile += ${group * items}) {
%     if prefetch:
        for (int j = 0; j < ${items}; ++j) stage[KJARNI_PAD(j * ${group} + lid)] = ahead[j];
        LOCAL_BARRIER;
        { const ${idx} next = tile + ${group * items};
          for (int j = 0; j < ${items}; ++j) {
            const ${idx} q = j * ${group} + lid;
            ahead[j] = next < end && end - next > q ? ${input('next + q')} : kjarni_neutral();
          }
        }
%     else:
${read_tile('        ')}\
%     endif
${scan_own_items('        ', write)}\
${scan_totals('        ')}\
%     if write:
        const KJARNI_ITEM prefix = lid > 0 ? kjarni_scan_op(carry, scratch[lid - 1]) : carry;
${write_tile('        ')}\
%     endif
        carry = kjarni_scan_op(carry, scratch[${group - 1}]);
        LOCAL_BARRIER;
    }
%     if not write:
    if (lid == 0) partial[row * pieces + piece] = carry;
%     endif
}
%   endif
% endif
