"""numpy's einsum on kjarni arrays (numpy 2.4's rules), composed from views and kjarni's operations:
the subscripts (explicit "ij,jk->ik", implicit "ij,jk", with "..." broadcasting, or the sublist
form einsum(a, [0, 1], b, [1, 2], [0, 2])) are checked as numpy checks them; each operand's
repeated subscripts become a strided diagonal view, its size-1 axes that broadcast are dropped, and
the operands are contracted pairwise from the left: the subscripts only one of the pair has and
nothing later needs summed (numpy.sum), then the pair as a batched BLAS matmul (_numpy_linalg's
_matmul) or, where nothing is contracted, a broadcast product. The result has numpy's dtype
(result_type of the operands, or dtype=) and is a kjarni Array (0-d for a full contraction);
kjarni/_numpy_common.py says what the numpy functions here share."""

import math
import operator

import numpy

from . import _kjarni
from .errors import ArgumentError, ArgumentTypeError
from ._numpy_common import Array, Expr, _queue, _refuse, _evaluated
from ._numpy_linalg import _on_device, _matmul
from ._numpy_shapes import _strided

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _error(message):
    return ArgumentError(f"numpy.einsum: {message}", "subscripts")


# ---- the subscripts ------------------------------------------------------------------------------

def _sublist_letter(s):
    """numpy's sublist subscript s: 0-25 are 'A'-'Z', 26-51 'a'-'z'; an Ellipsis is '...'."""
    if s is Ellipsis:
        return "..."
    try:
        s = operator.index(s)
    except TypeError:
        raise ArgumentTypeError("numpy.einsum: each subscript must be either an integer or an ellipsis",
                                "subscripts") from None
    if not 0 <= s < 52:
        raise _error(f"subscript {s} is not within the valid range [0, 52)")
    return chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26)


def _sublist_term(sublist):
    if isinstance(sublist, (Array, Expr, str)):
        raise ArgumentTypeError("numpy.einsum: the sublist form takes each operand's subscripts as a list of "
                                "integers and Ellipsis", "subscripts")
    return "".join(_sublist_letter(s) for s in sublist)


def _from_sublists(args):
    """einsum(op0, sublist0, op1, sublist1, ..., [sublistout]) as (subscripts string, operands)."""
    pairs = args[:len(args) - len(args) % 2]
    operands, sublists = list(pairs[0::2]), list(pairs[1::2])
    if not operands:
        raise _error("the sublist form takes operands, each followed by its subscripts")
    subscripts = ",".join(_sublist_term(s) for s in sublists)
    if len(args) % 2:
        subscripts += "->" + _sublist_term(args[-1])
    return subscripts, operands


def _term(term, where):
    """One term's subscripts as a list: letters, and None for its ellipsis (at most one)."""
    labels, i = [], 0
    while i < len(term):
        if term.startswith("...", i):
            if None in labels:
                raise _error(f"einstein sum subscripts string contains more than one ellipsis ('...') in {where}")
            labels.append(None)
            i += 3
            continue
        c = term[i]
        if c == ".":
            raise _error(f"einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') "
                         f"in {where}")
        if not (c.isascii() and c.isalpha()):
            raise _error(f"invalid subscript {c!r} in einstein sum subscripts string, subscripts must be letters")
        labels.append(c)
        i += 1
    return labels


def _split(subscripts, count):
    """The input terms (one per operand) and the output term (None in the implicit form)."""
    if not isinstance(subscripts, str):
        raise ArgumentTypeError(f"numpy.einsum: the subscripts must be a string (got {type(subscripts).__name__})",
                                "subscripts")
    text = subscripts.replace(" ", "")
    if text.count("->") > 1:
        raise _error("einstein sum subscript string does not contain proper '->' output specified")
    inputs, _, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) > count:
        raise _error(f"fewer operands ({count}) provided to einstein sum function than specified in the "
                     f"subscripts string {subscripts!r}")
    if len(terms) < count:
        raise _error(f"more operands ({count}) provided to einstein sum function than specified in the "
                     f"subscripts string {subscripts!r}")
    return [_term(t, f"operand {k}") for k, t in enumerate(terms)], \
        (_term(output, "the output") if "->" in text else None)


def _expand_ellipsis(terms, ndims):
    """Each operand's labels with its ellipsis as the integer labels -w..-1 (numpy right-aligns the
    broadcast dimensions, so the last one is -1 in every operand), and the broadcast width."""
    labelled, width = [], 0
    for k, (labels, ndim) in enumerate(zip(terms, ndims)):
        letters = len(labels) - (None in labels)
        if letters > ndim:
            raise _error(f"einstein sum subscripts string contains too many subscripts for operand {k} "
                         f"({letters} for {ndim} dimensions)")
        if None not in labels:
            if letters < ndim:
                raise _error(f"operand {k} has more dimensions ({ndim}) than subscripts given in einstein sum, but "
                             "no '...' ellipsis provided to broadcast the extra dimensions.")
            labelled.append(labels)
            continue
        w = ndim - letters
        width = max(width, w)
        at = labels.index(None)
        labelled.append(labels[:at] + list(range(-w, 0)) + labels[at + 1:])
    return labelled, width


def _output_labels(terms, output, width):
    """The result's labels: as given (its ellipsis the broadcast dimensions), or numpy's implicit
    output: the broadcast dimensions, then the letters that appear once, in alphabetical order."""
    ellipsis = list(range(-width, 0))
    letters = [label for labels in terms for label in labels if isinstance(label, str)]
    if output is None:
        return ellipsis + sorted(c for c in set(letters) if letters.count(c) == 1)
    for c in output:
        if c is not None and c not in letters:
            raise _error(f"einstein sum subscripts string included output subscript {c!r} which never appeared "
                         "in an input")
        if c is not None and output.count(c) > 1:
            raise _error(f"einstein sum subscripts string includes output subscript {c!r} multiple times")
    if None not in output:
        if width:
            raise _error("output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
                         "provided to broadcast the extra dimensions.")
        return output
    at = output.index(None)
    return output[:at] + ellipsis + output[at + 1:]


def _name(label):
    return repr(label) if isinstance(label, str) else f"'...' (its dimension {label})"


# ---- each operand on its own ---------------------------------------------------------------------

def _diagonal(x, labels, k):
    """x with the axes of each repeated label made one: numpy's diagonal view, one step along each of
    them at once (strides add); its labels then unique."""
    unique = list(dict.fromkeys(labels))
    if len(unique) == len(labels):
        return x, labels
    shape, strides = [], []
    for label in unique:
        axes = [i for i, other in enumerate(labels) if other == label]
        if len({x.shape[i] for i in axes}) > 1:
            raise _error(f"dimensions in operand {k} for collapsing index {_name(label)} don't match "
                         f"({' != '.join(str(x.shape[i]) for i in axes)})")
        shape.append(x.shape[axes[0]])
        strides.append(sum(x.strides[i] for i in axes))
    return _strided(x, shape, strides, x.offset), unique


def _sizes(operands, labels):
    """Each label's length: numpy broadcasts a length 1 against the others, which must agree."""
    sizes = {}
    for k, (x, ls) in enumerate(zip(operands, labels)):
        for label, n in zip(ls, x.shape):
            if n == 1:
                sizes.setdefault(label, 1)
            elif sizes.get(label, 1) in (1, n):
                sizes[label] = n
            else:
                raise _error(f"operands could not be broadcast together: subscript {_name(label)} has length "
                             f"{sizes[label]} in an operand before operand {k} and {n} in operand {k}")
    return sizes


def _unbroadcast(x, labels, sizes):
    """x without its length-1 axes whose label is longer elsewhere: broadcasting repeats its one
    element along them, which is what the other operands' axes of that label do without it."""
    dropped = [x.shape[i] == 1 and sizes[label] != 1 for i, label in enumerate(labels)]
    if not any(dropped):
        return x, labels
    view = x[tuple(0 if d else slice(None) for d in dropped)]
    view.queue = x.queue
    return view, [label for label, d in zip(labels, dropped) if not d]


def _sum_out(x, labels, keep, dtype):
    """x summed over the labels not in `keep` (bool as numpy's einsum sums it: an OR)."""
    axes = tuple(i for i, label in enumerate(labels) if label not in keep)
    if not axes:
        return x, labels
    total = numpy.any(x, axis=axes) if dtype == numpy.bool_ else numpy.sum(x, axis=axes, dtype=dtype)
    return total, [label for label in labels if label in keep]


# ---- pairs of operands ---------------------------------------------------------------------------

def _grouped(queue, x, labels, groups):
    """x transposed to the labels of `groups` in turn and reshaped to one axis per group."""
    order = [labels.index(label) for group in groups for label in group]
    shape = tuple(math.prod(x.shape[labels.index(label)] for label in group) for group in groups)
    from . import _algorithms
    return _algorithms.reshape(queue, x.transpose(order), shape)


def _product(queue, a, la, b, lb, needed, dtype):
    """The pair's product over the labels that both have and nothing later needs, with its labels:
    the batch labels (both have, needed), a's own, then b's own."""
    a, la = _sum_out(a, la, set(lb) | needed, dtype)
    b, lb = _sum_out(b, lb, set(la) | needed, dtype)
    batch = [label for label in la if label in lb and label in needed]
    summed = [label for label in la if label in lb and label not in needed]
    own_a = [label for label in la if label not in lb]
    own_b = [label for label in lb if label not in la]
    shape = tuple(a.shape[la.index(label)] for label in batch + own_a) + tuple(b.shape[lb.index(label)]
                                                                               for label in own_b)
    if summed:
        # (batch, a's own, summed) @ (batch, summed, b's own): one matmul of a stack of matrices
        product = _matmul(queue, _grouped(queue, a, la, [batch, own_a, summed]),
                          _grouped(queue, b, lb, [batch, summed, own_b]), dtype)
    else:
        # nothing to sum: the outer product of each batch element, broadcast (batch, a's own, 1) * (batch, 1, b's own)
        left = _grouped(queue, a, la, [batch, own_a, []])
        right = _grouped(queue, b, lb, [batch, [], own_b])
        product = _evaluated(queue, Expr(left) & right if dtype == numpy.bool_ else Expr(left) * right)
    from . import _algorithms
    return _algorithms.reshape(queue, product, shape), batch + own_a + own_b


# ---- the options ---------------------------------------------------------------------------------

def _result_dtype(operands, dtype, casting):
    """numpy's: dtype=, else result_type of the operands; each operand must cast to it by `casting`."""
    if casting not in _CASTINGS:
        raise ArgumentError(f"numpy.einsum: casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                            f"'unsafe' (got {casting!r})", "casting")
    result = numpy.result_type(*(numpy.dtype(x.dtype) for x in operands)) if dtype is None else numpy.dtype(dtype)
    for k, x in enumerate(operands):
        if not numpy.can_cast(numpy.dtype(x.dtype), result, casting):
            raise ArgumentTypeError(f"numpy.einsum: operand {k}'s dtype {numpy.dtype(x.dtype)} cannot be cast to "
                                    f"{result} according to the rule {casting!r}", "dtype")
    return result


def _check_order(order):
    if order in ("K", "C", "A", "k", "c", "a"):
        return
    if order in ("F", "f"):
        _refuse("einsum", "order='F' (kjarni's results are C-contiguous)")
    raise ArgumentError(f"numpy.einsum: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})", "order")


def _write(queue, out, value, casting):
    """value written into out (numpy's checks: the result's shape, a cast allowed by `casting`)."""
    if not isinstance(out, Array):
        _refuse("einsum", f"out= other than a kjarni Array (got {type(out).__name__})")
    if tuple(out.shape) != tuple(value.shape):
        raise ArgumentError(f"numpy.einsum: out has shape {tuple(out.shape)}, the result {tuple(value.shape)}",
                            "out")
    if not numpy.can_cast(numpy.dtype(value.dtype), numpy.dtype(out.dtype), casting):
        raise ArgumentTypeError(f"numpy.einsum: the result's dtype {numpy.dtype(value.dtype)} cannot be cast to "
                                f"out's {numpy.dtype(out.dtype)} according to the rule {casting!r}", "out")
    _kjarni.assign(queue, out, Expr(value).astype(out.dtype))
    return out


# ---- einsum --------------------------------------------------------------------------------------

def _prepared(queue, operands, terms, output):
    """The operands on the device with their labels (diagonals taken, broadcast axes dropped) and
    the result's labels."""
    operands = [_on_device(queue, x) for x in operands]
    labels, width = _expand_ellipsis(terms, [x.ndim for x in operands])
    output = _output_labels(labels, output, width)
    pairs = [_diagonal(x, ls, k) for k, (x, ls) in enumerate(zip(operands, labels))]
    operands, labels = [p[0] for p in pairs], [p[1] for p in pairs]
    sizes = _sizes(operands, labels)
    pairs = [_unbroadcast(x, ls, sizes) for x, ls in zip(operands, labels)]
    return [p[0] for p in pairs], [p[1] for p in pairs], output


def _einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    # (optimize= is accepted and ignored: the contraction order here is always left to right; the
    # result is the same up to rounding.)
    _check_order(order)
    if operands and isinstance(operands[0], str):
        subscripts, operands = operands[0], list(operands[1:])
    else:
        subscripts, operands = _from_sublists(operands)
    queue = _queue("einsum", *operands, out)
    terms, output = _split(subscripts, len(operands))
    operands, labels, output = _prepared(queue, operands, terms, output)
    if len(operands) == 1 and out is None and set(labels[0]) <= set(output):
        # numpy's einsum of one operand with nothing summed and no out= is a view of it (a
        # transpose, a diagonal, the operand itself), in the operand's dtype whatever dtype= says
        # and without casting='s check (numpy's get_single_op_view): einsum('ij->ji', int8 array,
        # dtype=complex128) is int8; only the options' spellings are checked.
        _result_dtype([], numpy.bool_ if dtype is None else dtype, casting)
        result = operands[0].transpose([labels[0].index(label) for label in output])
        result.queue = queue
        return result
    if dtype is None and out is not None and hasattr(out, "dtype"):
        # numpy computes in the common type of the operands and out= (its iterator's common
        # dtype): uint16 operands into a float64 out= are summed in float64, not wrapped in uint16.
        dtype = numpy.result_type(*(numpy.dtype(x.dtype) for x in operands), numpy.dtype(out.dtype))
    dtype = _result_dtype(operands, dtype, casting)
    operands = [_on_device(queue, x, dtype) for x in operands]
    x, lx = operands[0], labels[0]
    for k in range(1, len(operands)):
        needed = set(output).union(*labels[k + 1:])
        x, lx = _product(queue, x, lx, operands[k], labels[k], needed, dtype)
    x, lx = _sum_out(x, lx, set(output), dtype)
    result = x.transpose([lx.index(label) for label in output])
    result.queue = queue
    return result if out is None else _write(queue, out, result, casting)


def functions():
    """numpy's function object -> its composition here."""
    return {numpy.einsum: _einsum}
