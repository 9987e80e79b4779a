## kjarni's GEMM kernel, tensor-core form (src/blas/gemm_tensor.hpp explains the design): float64
## C = alpha op(A) op(B) + beta C, column-major, through the m8n8k4 DMMA of compute capability 8.0
## and later (inline PTX, taken by NVIDIA's OpenCL and by NVRTC alike), or an emulation of it in
## local memory with the same fragments (CPU devices: the kernel's indexing tested there). The
## m16n8k4 DMMA of compute capability 9.0 is the same product on two 8-row blocks at once.
##
## Globals (src/blas/gemm_tensor.cpp): ta, tb (transposes), aligned (no bounds checks, vector
## loads of vwg), native (the DMMA itself, else its emulation), mwg, nwg, kwg (the group's tile and
## K slice), warps_m, warps_n, threads (32 warps_m warps_n), fm, fn (8x8 fragments of a warp along
## M and N), mma_m (8: the m8n8k4 DMMA; 16: m16n8k4, compute capability 9.0, on pairs of 8-row
## blocks; the emulation is the same for both), mma_k (4; with mma_m 16 also 8 or 16: the m16n8k8 and
## m16n8k16 DMMA of compute capability 9.0, each the product of mma_k / 4 consecutive k-steps of 4 in
## one instruction; emulated k-step by k-step), swizzle (0: rows of the local slices padded to 4 mod
## 16 doubles; 1: unpadded rows, element r of row p at r ^ 4 (p % 4)), vwg, lda_l, ldb_l (the local
## slices' leading dimensions), loads_a, loads_b (vectors per work item per slice), vtype (their type:
## double or double2), async_copy (aligned problems: the slices copied from global into local
## memory by cp.async, `buffers` (2 or 3) of them in flight, instead of through registers; emulated
## as plain copies), pipeline (the fragments of the next k-group read into registers before the
## DMMAs of this one, across slices too: a slice's last group is multiplied after the barrier that
## publishes the next slice, behind the reads of its first fragments; `buffers` 2 or 3).
##
## The local slices: a_local[p * lda_l + r] for p < kwg, r < mwg (row r of op(A)'s tile, column
## p of the slice; swizzled: at p * lda_l + (r ^ 4 (p % 4))), b_local[p * ldb_l + c] for c < nwg, `buffers` of each: 2 (double buffered:
## one barrier per slice) or 1 (the next slice waits in registers for a barrier after the
## multiplication: two barriers per slice, half the local memory, so longer slices fit).
## A work item's global loads of one operand: vector l is element e = tid + l threads of the slice
## in the order of the operand's contiguous axis; its (p, r) are computed once.
<%def name="load_indices(x, contiguous, extent, loads, ld_l)">\
% for l in range(loads):
<% across = (extent if contiguous else kwg) // (vwg if aligned else 1) %>\
% if contiguous:
    const int ${x}r${l} = ((tid + ${l * threads}) % ${across}) * ${vwg if aligned else 1};
    const int ${x}p${l} = (tid + ${l * threads}) / ${across};
% else:
    const int ${x}p${l} = ((tid + ${l * threads}) % ${across}) * ${vwg if aligned else 1};
    const int ${x}r${l} = (tid + ${l * threads}) / ${across};
% endif
## Where the vector's elements go in a local slice: ${x}s<l>_<w> for element w (along p where the
## operand is not contiguous along r; along r the elements are adjacent, swizzled or not).
% for w in range(vwg if (aligned and not contiguous) else 1):
% if swizzle:
    const int ${x}s${l}_${w} = (${x}p${l} + ${w}) * ${ld_l} + (${x}r${l} ^ (((${x}p${l} + ${w}) & 3) << 2));
% else:
    const int ${x}s${l}_${w} = (${x}p${l} + ${w}) * ${ld_l} + ${x}r${l};
% endif
% endfor
% endfor
</%def>\
## Global to registers: the slice starting at K index `kn`.
<%def name="load_slice(x, pointer, ld, origin, limit, contiguous, loads, kn)">\
% for l in range(loads):
<% address = '(%s + %sr%d) + (int64_t)(%s + %sp%d) * %s' % (origin, x, l, kn, x, l, ld) if contiguous else '(%s + %sp%d) + (int64_t)(%s + %sr%d) * %s' % (kn, x, l, origin, x, l, ld) %>\
% if aligned:
        ${x}v${l} = *(const GLOBAL_MEM ${vtype}*)(${pointer} + ${address});
% else:
        ${x}v${l} = (${origin} + ${x}r${l} < ${limit} && ${kn} + ${x}p${l} < k) ? ${pointer}[${address}] : 0.0;
% endif
% endfor
</%def>\
## Registers to the local slice `dst`.
<%def name="store_slice(x, dst, contiguous, loads)">\
% for l in range(loads):
% if aligned and vwg == 2:
% for w in range(2):
        ${dst}[${'%ss%d_0 + %d' % (x, l, w) if contiguous else '%ss%d_%d' % (x, l, w)}] = ${x}v${l}.${'xy'[w]};
% endfor
% else:
        ${dst}[${x}s${l}_0] = ${x}v${l};
% endif
% endfor
</%def>\
## Global straight into the local slice `dst` (cp.async, aligned problems): the slice at K index `kn`.
<%def name="copy_slice(x, pointer, ld, origin, dst, contiguous, loads, kn)">\
% for l in range(loads):
<% address = '(%s + %sr%d) + (int64_t)(%s + %sp%d) * %s' % (origin, x, l, kn, x, l, ld) if contiguous else '(%s + %sp%d) + (int64_t)(%s + %sr%d) * %s' % (kn, x, l, origin, x, l, ld) %>\
% if vwg == 2 and contiguous:
        KJARNI_CP_ASYNC16(${dst} + ${x}s${l}_0, ${pointer} + ${address});
% elif vwg == 2:
        KJARNI_CP_ASYNC8(${dst} + ${x}s${l}_0, ${pointer} + ${address});
        KJARNI_CP_ASYNC8(${dst} + ${x}s${l}_1, ${pointer} + ${address} + 1);
% else:
        KJARNI_CP_ASYNC8(${dst} + ${x}s${l}_0, ${pointer} + ${address});
% endif
% endfor
</%def>\
## The fragments of k-group `kq` (mma_k / 4 k-steps of 4) of the slices at `a_src` and `b_src`:
## `fa`<i>_<s> of A and `fb`<j>_<s> of B for k-step s of the group, declared by `decl` (or assigned).
<%def name="load_fragments(kq, a_src, b_src, decl, fa, fb)">\
% for s in range(mma_k // 4):
<% kk = kq * (mma_k // 4) + s %>\
% for i in range(fm):
            ${decl}${fa}${i}_${s} = ${a_src}[a_frag${i % 2} + ${kk * 4 * lda_l + i * 8}];
% endfor
% for j in range(fn):
            ${decl}${fb}${j}_${s} = ${b_src}[b_frag${j % 2} + ${kk * 4 * ldb_l + j * 8}];
% endfor
% endfor
</%def>\
## The DMMAs of one k-group on the fragments af, bf (one DMMA each where native, else emulated
## k-step by k-step).
<%def name="multiply()">\
% if native and mma_m == 16 and mma_k == 16:
% for i in range(0, fm, 2):
% for j in range(fn):
            KJARNI_DMMA16K16(c_${i}_${j}_0, c_${i}_${j}_1, c_${i + 1}_${j}_0, c_${i + 1}_${j}_1, af${i}_0, af${i + 1}_0, af${i}_1, af${i + 1}_1, af${i}_2, af${i + 1}_2, af${i}_3, af${i + 1}_3, bf${j}_0, bf${j}_1, bf${j}_2, bf${j}_3);
% endfor
% endfor
% elif native and mma_m == 16 and mma_k == 8:
% for i in range(0, fm, 2):
% for j in range(fn):
            KJARNI_DMMA16K8(c_${i}_${j}_0, c_${i}_${j}_1, c_${i + 1}_${j}_0, c_${i + 1}_${j}_1, af${i}_0, af${i + 1}_0, af${i}_1, af${i + 1}_1, bf${j}_0, bf${j}_1);
% endfor
% endfor
% elif native and mma_m == 16:
% for i in range(0, fm, 2):
% for j in range(fn):
            KJARNI_DMMA16(c_${i}_${j}_0, c_${i}_${j}_1, c_${i + 1}_${j}_0, c_${i + 1}_${j}_1, af${i}_0, af${i + 1}_0, bf${j}_0);
% endfor
% endfor
% elif native:
% for i in range(fm):
% for j in range(fn):
            KJARNI_DMMA(c_${i}_${j}_0, c_${i}_${j}_1, af${i}_0, bf${j}_0);
% endfor
% endfor
% else:
% for s in range(mma_k // 4):
% for i in range(fm):
            kjarni_wx[${i * threads} + tid] = af${i}_${s};
% endfor
% for j in range(fn):
            kjarni_wx[${(fm + j) * threads} + tid] = bf${j}_${s};
% endfor
            LOCAL_BARRIER;
% for i in range(fm):
% for j in range(fn):
            c_${i}_${j}_0 = kjarni_dmma_emulated(c_${i}_${j}_0, kjarni_wx + ${i * threads} + wx_a, kjarni_wx + ${(fm + j) * threads} + wx_b);
            c_${i}_${j}_1 = kjarni_dmma_emulated(c_${i}_${j}_1, kjarni_wx + ${i * threads} + wx_a, kjarni_wx + ${(fm + j) * threads} + wx_b + 4);
% endfor
% endfor
            LOCAL_BARRIER;
% endfor
% endif
</%def>\
// kjarni GEMM, tensor-core form: double ${'T' if ta else 'N'}${'T' if tb else 'N'} ${'aligned' if aligned else 'bounds-checked'}, ${'DMMA' if native else 'emulated DMMA'} m${mma_m}n8k${mma_k}${' swizzled' if swizzle else ''}${', cp.async %d stages' % buffers if async_copy else ''}
% if async_copy and native:
// Asynchronous copies from global into local memory (PTX ISA cp.async, compute capability 8.0):
// 16 bytes through L2 only, 8 bytes through L1; a group per slice, waited for before the barrier
// that makes it visible. The local address is the 32-bit one of the shared window: a __local
// pointer's value in OpenCL C, the conversion of CUDA's generic pointer.
#ifdef KJARNI_CUDA_API
FUNCTION INLINE unsigned kjarni_shared_address(const double* p) {
    unsigned address;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(address) : "l"(p));
    return address;
}
#define KJARNI_SHARED_ADDRESS(p) kjarni_shared_address(p)
#define KJARNI_GLOBAL_ADDRESS(p) ((unsigned long long)(p))
#else
#define KJARNI_SHARED_ADDRESS(p) ((uint)(ulong)(p))
#define KJARNI_GLOBAL_ADDRESS(p) ((ulong)(p))
#endif
#define KJARNI_CP_ASYNC16(dst, src) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" : : "r"(KJARNI_SHARED_ADDRESS(dst)), "l"(KJARNI_GLOBAL_ADDRESS(src)) : "memory")
#define KJARNI_CP_ASYNC8(dst, src) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" : : "r"(KJARNI_SHARED_ADDRESS(dst)), "l"(KJARNI_GLOBAL_ADDRESS(src)) : "memory")
#define KJARNI_CP_COMMIT() asm volatile("cp.async.commit_group;" : : : "memory")
#define KJARNI_CP_WAIT(n) asm volatile("cp.async.wait_group " #n ";" : : : "memory")
% elif async_copy:
// cp.async emulated: plain copies (done when issued).
#define KJARNI_CP_ASYNC16(dst, src) do { (dst)[0] = (src)[0]; (dst)[1] = (src)[1]; } while (0)
#define KJARNI_CP_ASYNC8(dst, src) (*(dst) = *(src))
#define KJARNI_CP_COMMIT()
#define KJARNI_CP_WAIT(n)
% endif
% if native and mma_m == 16 and mma_k == 4:
// D = A B + C for one 16x8x4 product of the warp (compute capability 9.0): lane (g, t) = (lane / 4,
// lane % 4) gives A[g][t], A[g + 8][t] and B[t][g] and holds C[g][2t], C[g][2t + 1], C[g + 8][2t],
// C[g + 8][2t + 1] (PTX ISA, mma.m16n8k4 with .f64): two 8x8x4 products of adjacent 8-row blocks
// that share B.
#define KJARNI_DMMA16(d0, d1, d2, d3, a0, a1, b) asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3) : "d"(a0), "d"(a1), "d"(b), "d"(d0), "d"(d1), "d"(d2), "d"(d3))
% elif native and mma_k == 8:
// D = A B + C for one 16x8x8 product of the warp (compute capability 9.0; PTX ISA, mma.m16n8k8
// with .f64): lane (g, t) gives A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4] and B[t][g],
// B[t + 4][g], i.e. the fragments of two consecutive k-steps of 4 of the m16n8k4 DMMA, and holds
// C as that one does.
#define KJARNI_DMMA16K8(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1) asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3) : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1), "d"(d0), "d"(d1), "d"(d2), "d"(d3))
% elif native and mma_k == 16:
// D = A B + C for one 16x8x16 product of the warp (compute capability 9.0; PTX ISA, mma.m16n8k16
// with .f64): lane (g, t) gives A[g][4s + t], A[g + 8][4s + t] (a2s, a2s+1) and B[4s + t][g] (bs)
// for s = 0..3, the fragments of four consecutive k-steps of 4, and holds C as m16n8k4 does.
#define KJARNI_DMMA16K16(d0, d1, d2, d3, a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3) asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};" : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3) : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(a4), "d"(a5), "d"(a6), "d"(a7), "d"(b0), "d"(b1), "d"(b2), "d"(b3), "d"(d0), "d"(d1), "d"(d2), "d"(d3))
% elif native:
// D = A B + C for one 8x8x4 product of the warp: lane (g, t) = (lane / 4, lane % 4) gives A[g][t]
// and B[t][g] and holds C[g][2t], C[g][2t + 1] (PTX ISA, mma.m8n8k4 with .f64).
#define KJARNI_DMMA(d0, d1, a, b) asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};" : "=d"(d0), "=d"(d1) : "d"(a), "d"(b), "d"(d0), "d"(d1))
% else:
// The DMMA emulated: the fragments of a k-step go through local memory (wx: fragment f of work
// item w at f * ${threads} + w), and each lane sums its two elements of C over k = 0..3 from the
// lanes that hold them: A[g][q] from lane 4g + q, B[q][j] from lane 4j + q, as an fma chain.
FUNCTION INLINE double kjarni_dmma_emulated(double c, LOCAL_MEM const double* a, LOCAL_MEM const double* b) {
    c = fma(a[0], b[0], c);
    c = fma(a[1], b[1], c);
    c = fma(a[2], b[2], c);
    c = fma(a[3], b[3], c);
    return c;
}
% endif
KERNEL void kjarni_gemm(
    GLOBAL_MEM const double* A, int64_t a_offset, int64_t lda, int64_t a_stride,
    GLOBAL_MEM const double* B, int64_t b_offset, int64_t ldb, int64_t b_stride,
    GLOBAL_MEM double* C, int64_t c_offset, int64_t ldc, int64_t c_stride,
    int m, int n, int k, double alpha, double beta)
{
    LOCAL_MEM_DECL double a_local[${buffers * kwg * lda_l}] ALIGN(16);
    LOCAL_MEM_DECL double b_local[${buffers * kwg * ldb_l}] ALIGN(16);
% if not native:
    LOCAL_MEM_DECL double kjarni_wx[${(fm + fn) * threads}];
% endif
    const int tid = (int)get_local_id(0);
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int g = lane >> 2;
    const int t = lane & 3;
    const int warp_row = (warp % ${warps_m}) * ${fm * 8};
    const int warp_col = (warp / ${warps_m}) * ${fn * 8};
    const int row0 = (int)get_group_id(0) * ${mwg};
    const int col0 = (int)get_group_id(1) * ${nwg};
    const int64_t batch = (int64_t)get_group_id(2);
    A += a_offset + batch * a_stride;
    B += b_offset + batch * b_stride;
    C += c_offset + batch * c_stride;
${load_indices('a', not ta, mwg, loads_a, lda_l)}\
${load_indices('b', tb, nwg, loads_b, ldb_l)}\
% if not async_copy:
% for l in range(loads_a):
    ${vtype} av${l};
% endfor
% for l in range(loads_b):
    ${vtype} bv${l};
% endfor
% endif
% for i in range(fm):
% for j in range(fn):
    double c_${i}_${j}_0 = 0, c_${i}_${j}_1 = 0;
% endfor
% endfor
    // Where this lane's fragments start in a slice: A[g][t] of the warp's first 8 rows, B[t][g]
    // of its first 8 columns (frag0); swizzled, the odd 8-row (8-column) blocks at frag1: element
    // (t, r) of the slice is at t ld + (r ^ 4t), and for r = 16u + 8v + g (u, v whole, v < 2)
    // r ^ 4t = 16u + 8 (v ^ (t >> 1)) + (g ^ 4 (t & 1)).
% if swizzle:
    const int a_frag0 = t * ${lda_l} + warp_row + (g ^ ((t & 1) << 2)) + ((t >> 1) << 3);
    const int a_frag1 = a_frag0 - ((t >> 1) << 4);
    const int b_frag0 = t * ${ldb_l} + warp_col + (g ^ ((t & 1) << 2)) + ((t >> 1) << 3);
    const int b_frag1 = b_frag0 - ((t >> 1) << 4);
% else:
    const int a_frag0 = t * ${lda_l} + warp_row + g;
    const int a_frag1 = a_frag0;
    const int b_frag0 = t * ${ldb_l} + warp_col + g;
    const int b_frag1 = b_frag0;
% endif
% if not native:
    const int wx_a = (warp << 5) + (g << 2);
    const int wx_b = (warp << 5) + (t << 3);
% endif
% if pipeline:
## Pipelined (gemm_tensor.hpp, PIPELINE = 1): the fragments of the next k-group are read into
## an<i>_<s>, bn<j>_<s> before the DMMAs of this one (af, bf), and a slice's last k-group is
## multiplied after the barrier that publishes the next slice, behind the reads of that slice's first
## fragments: the DMMAs cover the barrier and the latency of the local reads.
% for s in range(mma_k // 4):
% for i in range(fm):
    double af${i}_${s}, an${i}_${s};
% endfor
% for j in range(fn):
    double bf${j}_${s}, bn${j}_${s};
% endfor
% endfor
% if async_copy:
    // The first ${buffers - 1} slice(s) in flight, a group each (empty past k: the count stays even).
% for st in range(buffers - 1):
    if (${st * kwg} < k) {
${copy_slice('a', 'A', 'lda', 'row0', 'a_local + %d' % (st * kwg * lda_l), not ta, loads_a, str(st * kwg))}\
${copy_slice('b', 'B', 'ldb', 'col0', 'b_local + %d' % (st * kwg * ldb_l), tb, loads_b, str(st * kwg))}\
    }
    KJARNI_CP_COMMIT();
% endfor
    KJARNI_CP_WAIT(${buffers - 2});
% else:
    if (k > 0) {
${load_slice('a', 'A', 'lda', 'row0', 'm', not ta, loads_a, '0')}\
${load_slice('b', 'B', 'ldb', 'col0', 'n', tb, loads_b, '0')}\
${store_slice('a', 'a_local', not ta, loads_a)}\
${store_slice('b', 'b_local', tb, loads_b)}\
    }
% endif
    LOCAL_BARRIER;
    int buffer = 0;
    // The first slice's first fragments (k = 0: never used), then the slice after the ones in
    // flight: ${'by cp.async into the last buffer' if async_copy else 'into registers'}.
    {
${load_fragments(0, 'a_local', 'b_local', '', 'af', 'bf')}\
% if async_copy:
        if (${(buffers - 1) * kwg} < k) {
${copy_slice('a', 'A', 'lda', 'row0', 'a_local + %d' % ((buffers - 1) * kwg * lda_l), not ta, loads_a, str((buffers - 1) * kwg))}\
${copy_slice('b', 'B', 'ldb', 'col0', 'b_local + %d' % ((buffers - 1) * kwg * ldb_l), tb, loads_b, str((buffers - 1) * kwg))}\
        }
        KJARNI_CP_COMMIT();
% else:
        if (${kwg} < k) {
${load_slice('a', 'A', 'lda', 'row0', 'm', not ta, loads_a, str(kwg))}\
${load_slice('b', 'B', 'ldb', 'col0', 'n', tb, loads_b, str(kwg))}\
        }
% endif
    }
    for (int k0 = 0; k0 < k; k0 += ${kwg}) {
% if kwg // mma_k > 1:
        LOCAL_MEM const double* a_cur = a_local + buffer * ${kwg * lda_l};
        LOCAL_MEM const double* b_cur = b_local + buffer * ${kwg * ldb_l};
% endif
% for kq in range(kwg // mma_k):
        {
% if kq + 1 < kwg // mma_k:
${load_fragments(kq + 1, 'a_cur', 'b_cur', '', 'an', 'bn')}\
% else:
% if async_copy:
            // The next slice's group done (at most ${buffers - 2} newer in flight), and after the
            // barrier every work item's copies visible and every warp done with this slice's
            // buffer (its last fragments are in registers): the slice ${buffers} ahead goes there.
            KJARNI_CP_WAIT(${buffers - 2});
            LOCAL_BARRIER;
            {
                const int kn = k0 + ${buffers * kwg};
                if (kn < k) {
                    LOCAL_MEM double* a_fill = a_local + buffer * ${kwg * lda_l};
                    LOCAL_MEM double* b_fill = b_local + buffer * ${kwg * ldb_l};
${copy_slice('a', 'A', 'lda', 'row0', 'a_fill', not ta, loads_a, 'kn')}\
${copy_slice('b', 'B', 'ldb', 'col0', 'b_fill', tb, loads_b, 'kn')}\
                }
                KJARNI_CP_COMMIT();
            }
            buffer = buffer == ${buffers - 1} ? 0 : buffer + 1;
% else:
            // The next slice from registers into the other buffer (that of the slice before this
            // one: every warp read its last fragments before the barrier that ended it).
            if (k0 + ${kwg} < k) {
                LOCAL_MEM double* a_next = a_local + (buffer ^ 1) * ${kwg * lda_l};
                LOCAL_MEM double* b_next = b_local + (buffer ^ 1) * ${kwg * ldb_l};
${store_slice('a', 'a_next', not ta, loads_a)}\
${store_slice('b', 'b_next', tb, loads_b)}\
            }
            LOCAL_BARRIER;
            buffer ^= 1;
% endif
            // The next slice's first fragments (past k: never used).
            LOCAL_MEM const double* a_first = a_local + buffer * ${kwg * lda_l};
            LOCAL_MEM const double* b_first = b_local + buffer * ${kwg * ldb_l};
${load_fragments(0, 'a_first', 'b_first', '', 'an', 'bn')}\
% if not async_copy:
            // The slice after it into registers, stored at the end of the next slice.
            if (k0 + ${2 * kwg} < k) {
                const int kn = k0 + ${2 * kwg};
${load_slice('a', 'A', 'lda', 'row0', 'm', not ta, loads_a, 'kn')}\
${load_slice('b', 'B', 'ldb', 'col0', 'n', tb, loads_b, 'kn')}\
            }
% endif
% endif
${multiply()}\
% for s in range(mma_k // 4):
% for i in range(fm):
            af${i}_${s} = an${i}_${s};
% endfor
% for j in range(fn):
            bf${j}_${s} = bn${j}_${s};
% endfor
% endfor
        }
% endfor
    }
% else:
% if async_copy:
    // The first ${buffers - 1} slice(s) in flight, a group each (empty past k: the count stays even).
% for st in range(buffers - 1):
    if (${st * kwg} < k) {
${copy_slice('a', 'A', 'lda', 'row0', 'a_local + %d' % (st * kwg * lda_l), not ta, loads_a, str(st * kwg))}\
${copy_slice('b', 'B', 'ldb', 'col0', 'b_local + %d' % (st * kwg * ldb_l), tb, loads_b, str(st * kwg))}\
    }
    KJARNI_CP_COMMIT();
% endfor
    int buffer = 0;
    int fill = ${buffers - 1};
    for (int k0 = 0; k0 < k; k0 += ${kwg}) {
        // This slice's group done (at most ${buffers - 2} newer in flight), and after the barrier
        // every work item's copies visible and every warp done with the buffer to fill next
        // (multiplied in the iteration before).
        KJARNI_CP_WAIT(${buffers - 2});
        LOCAL_BARRIER;
        {
            const int kn = k0 + ${(buffers - 1) * kwg};
            if (kn < k) {
                LOCAL_MEM double* a_fill = a_local + fill * ${kwg * lda_l};
                LOCAL_MEM double* b_fill = b_local + fill * ${kwg * ldb_l};
${copy_slice('a', 'A', 'lda', 'row0', 'a_fill', not ta, loads_a, 'kn')}\
${copy_slice('b', 'B', 'ldb', 'col0', 'b_fill', tb, loads_b, 'kn')}\
            }
            KJARNI_CP_COMMIT();
        }
% else:
    if (k > 0) {
${load_slice('a', 'A', 'lda', 'row0', 'm', not ta, loads_a, '0')}\
${load_slice('b', 'B', 'ldb', 'col0', 'n', tb, loads_b, '0')}\
${store_slice('a', 'a_local', not ta, loads_a)}\
${store_slice('b', 'b_local', tb, loads_b)}\
    }
    LOCAL_BARRIER;
    int buffer = 0;
    for (int k0 = 0; k0 < k; k0 += ${kwg}) {
        const int more = k0 + ${kwg} < k;
        // The next slice into registers while this one is multiplied.
        if (more) {
            const int kn = k0 + ${kwg};
${load_slice('a', 'A', 'lda', 'row0', 'm', not ta, loads_a, 'kn')}\
${load_slice('b', 'B', 'ldb', 'col0', 'n', tb, loads_b, 'kn')}\
        }
% endif
        LOCAL_MEM const double* a_cur = a_local + buffer * ${kwg * lda_l};
        LOCAL_MEM const double* b_cur = b_local + buffer * ${kwg * ldb_l};
## Groups of mma_k / 4 k-steps of 4: one DMMA each (m16n8k8, m16n8k16) where native, else step by step.
% for kq in range(kwg // mma_k):
        {
${load_fragments(kq, 'a_cur', 'b_cur', 'const double ', 'af', 'bf')}\
${multiply()}\
        }
% endfor
% if async_copy:
        buffer = buffer == ${buffers - 1} ? 0 : buffer + 1;
        fill = fill == ${buffers - 1} ? 0 : fill + 1;
% elif buffers == 2:
        if (more) {
            LOCAL_MEM double* a_next = a_local + (buffer ^ 1) * ${kwg * lda_l};
            LOCAL_MEM double* b_next = b_local + (buffer ^ 1) * ${kwg * ldb_l};
${store_slice('a', 'a_next', not ta, loads_a)}\
${store_slice('b', 'b_next', tb, loads_b)}\
        }
        LOCAL_BARRIER;
        buffer ^= 1;
% else:
        // One buffer: every warp is done with this slice before the next one replaces it.
        LOCAL_BARRIER;
        if (more) {
${store_slice('a', 'a_local', not ta, loads_a)}\
${store_slice('b', 'b_local', tb, loads_b)}\
        }
        LOCAL_BARRIER;
% endif
    }
% endif

    // Lane (g, t) holds rows warp_row + 8i + g, columns warp_col + 8j + 2t + {0, 1}.
    const int out_row = row0 + warp_row + g;
    const int out_col = col0 + warp_col + 2 * t;
% for read_c in (False, True):
% if read_c:
    } else {
% else:
    if (beta == 0) {
% endif
% for i in range(fm):
% for j in range(fn):
% for h in range(2):
<% target = 'C[(out_row + %d) + (int64_t)(out_col + %d) * ldc]' % (i * 8, j * 8 + h) %>\
<% value = 'alpha * c_%d_%d_%d + beta * %s' % (i, j, h, target) if read_c else 'alpha * c_%d_%d_%d' % (i, j, h) %>\
% if aligned:
        ${target} = ${value};
% else:
        if (out_row + ${i * 8} < m && out_col + ${j * 8 + h} < n) ${target} = ${value};
% endif
% endfor
% endfor
% endfor
% endfor
    }
}
