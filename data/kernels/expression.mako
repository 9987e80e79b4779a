## The kernel of an expression (src/algorithms/expression_eval.cpp; its generate() gives the
## globals): loads each array's element once, computes the value, stores it. Forms:
##   vector       every array contiguous and aligned: `width`-element vectors (vector_loop.mako)
##   flat         arrays contiguous or one broadcast element: off + step * i
##   strided      coordinates decoded over the merged axes (decode)
##   cpu_flat, cpu_strided: the CPU form (cpu_code.hpp), a contiguous run per work item
## Globals: idx, out_ctype (C types), arrays (each array's [storage, compute] C types), scalars
## (each scalar parameter's C type), names (out, in0, in1, ...), store (the statement's stored
## value), load(k, element) (array k's value read from a storage element), decode(i) (statements
## declaring every <name>_o at flat index i), layout_params, prologue (strided: the layout's
## decoding; flat and vector forms whose offsets and steps are constants: their declarations),
## cpu_bounds, steps (cpu_flat: whether each operand steps), stream_line (cpu_flat: output elements
## in a 64-byte line stored past the cache, 0 for plain stores), unroll (elements per work item and
## round), width, vectors (for vector_loop.mako).
<%namespace name="loops" file="vector_loop.mako"/>\
## Loads of every array's element at `at` (an element expression per operand), then the store.
<%def name="element_body(at)">\
% for k in range(len(arrays)):
        const ${arrays[k][1]} v${k} = ${load(k, 'in%d_base[%s]' % (k, at[k + 1]))};
% endfor
        out_base[${at[0]}] = ${store};
</%def>\
## The same into kj_line.e[kj_k], a private line of the output (cpu_flat's streaming stores).
<%def name="line_body(at)">\
% for k in range(len(arrays)):
            const ${arrays[k][1]} v${k} = ${load(k, 'in%d_base[%s]' % (k, at[k + 1]))};
% endfor
            kj_line.e[kj_k] = ${store};
</%def>\
## Statements declaring every operand's <name>_o for the element `i`.
<%def name="offsets_at(i)">\
% if form == 'strided':
${decode(i)}\
% else:
%   for name in names:
    ${idx} ${name}_o = ${name}_off + ${name}_step * (${i});
%   endfor
% endif
</%def>\
## `unroll` elements per work item and round, a group's round covering unroll x local size
## consecutive elements (work item l takes l, l + local, ...). In a full round every element's
## loads are issued before any store (the compiler may not move a load above a store through
## pointers that may alias); the last, partial round goes element by element. The loops over rounds
## stay rolled, as vector_loop.mako's (which says why).
<%def name="blocked_loop()">\
    const ${idx} kj_l = (${idx})get_local_size(0);
#pragma unroll 1
    for (${idx} kj_b = (${idx})get_group_id(0) * kj_l * ${unroll}; kj_b < n;
         kj_b += (${idx})get_global_size(0) * ${unroll}) {
      const ${idx} kj_i = kj_b + (${idx})get_local_id(0);
      if (n - kj_b >= kj_l * ${unroll}) {
% for u in range(unroll):
%   for name in names:
      ${idx} kj_${name}_o${u};
%   endfor
      {
${offsets_at('kj_i + %d * kj_l' % u)}\
%   for name in names:
      kj_${name}_o${u} = ${name}_o;
%   endfor
      }
%   for k in range(len(arrays)):
      const ${arrays[k][1]} kj_v${k}_${u} = ${load(k, 'in%d_base[kj_in%d_o%d]' % (k, k, u))};
%   endfor
% endfor
% for u in range(unroll):
      {
%   for k in range(len(arrays)):
        const ${arrays[k][1]} v${k} = kj_v${k}_${u};
%   endfor
        out_base[kj_out_o${u}] = ${store};
      }
% endfor
      } else {
#pragma unroll 1
        for (${idx} i = kj_i; i < n; i += kj_l) {
${offsets_at('i')}\
${element_body([name + '_o' for name in names])}\
        }
      }
    }
</%def>\
## The vector form's element (kj_j: the vector, kj_q: the lane) and its leftover elements.
<%def name="vector_element()">\
% for k in range(len(arrays)):
                const ${arrays[k][1]} v${k} = ${load(k, vector_elements[k + 1])};
% endfor
                ${vector_elements[0]} = ${store};
</%def>\
<%def name="vector_tail()">\
#pragma unroll 1
    for (${idx} i = start; i < n; i += (${idx})get_global_size(0)) {
${element_body(['%s_off + %s_step * i' % (name, name) for name in names])}\
    }
</%def>\
KERNEL void kjarni_expression(GLOBAL_MEM ${out_ctype} *out_base${''.join(', GLOBAL_MEM const %s *in%d_base' % (a[0], k) for k, a in enumerate(arrays))}${''.join(', %s s%d' % (t, j) for j, t in enumerate(scalars))}, ${idx} n${layout_params})
{
% if form == 'cpu_strided':
${prologue}${cpu_bounds}\
    for (${idx} i = kj_begin; i < kj_end; ++i) {
${decode('i')}\
${element_body([name + '_o' for name in names])}\
    }
% elif form == 'cpu_flat' and stream_line:
## Streaming stores (the output does not stay in the cache anyway): element by element up to the
## output's first 64-byte line, then whole lines computed into a private line and stored past the
## cache (OpenCL C through clang: a non-temporal store of 64 bytes; elsewhere plain stores), then
## the rest element by element.
${cpu_bounds}\
    ${idx} i = kj_begin;
    for (; i < kj_end && ((uint64_t)(out_base + out_off + i) & 63) != 0; ++i) {
${element_body([name + ('_off + i' if steps[k] else '_off') for k, name in enumerate(names)])}\
    }
    for (; kj_end - i >= ${stream_line}; i += ${stream_line}) {
#if defined(__OPENCL_VERSION__) && defined(__clang__)
        union { ${out_ctype} e[${stream_line}]; uint16 v; } kj_line;  // (a union: the line read as uint16)
#else
        struct { ${out_ctype} e[${stream_line}]; } kj_line;
#endif
        for (int kj_k = 0; kj_k < ${stream_line}; ++kj_k) {
${line_body([name + ('_off + i + kj_k' if steps[k] else '_off') for k, name in enumerate(names)])}\
        }
#if defined(__OPENCL_VERSION__) && defined(__clang__)
        __builtin_nontemporal_store(kj_line.v, (GLOBAL_MEM uint16*)(out_base + out_off + i));
#else
        for (int kj_k = 0; kj_k < ${stream_line}; ++kj_k) out_base[out_off + i + kj_k] = kj_line.e[kj_k];
#endif
    }
    for (; i < kj_end; ++i) {
${element_body([name + ('_off + i' if steps[k] else '_off') for k, name in enumerate(names)])}\
    }
% elif form == 'cpu_flat':
${cpu_bounds}\
    for (${idx} i = kj_begin; i < kj_end; ++i) {
${element_body([name + ('_off + i' if steps[k] else '_off') for k, name in enumerate(names)])}\
    }
% elif form == 'strided':
${prologue}\
${blocked_loop()}\
% elif form == 'flat':
${prologue}\
${blocked_loop()}\
% else:
${prologue}\
${loops.vector_loop(vectors, width, idx, vector_unroll, vector_element, vector_tail)}\
% endif
}
