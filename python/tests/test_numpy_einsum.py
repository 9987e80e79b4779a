"""numpy.einsum on kjarni arrays (kjarni/_numpy_einsum.py) against numpy 2.4 on the same random data:
the result is a kjarni Array with numpy's dtype and shape, its values exact for integers and bool
and within the rounding bound of its sums for floats; bad subscripts raise numpy's exception
classes (ValueError, TypeError), and what kjarni leaves out raises ArgumentTypeError."""

import numpy
import pytest

import kjarni
from numpy_comparison import device, random


def bound(subscripts, operands, dtype):
    """How far kjarni's result may be from numpy's: each result element is a sum of n products of
    m factors, and a sum of n products rounded in floating point is within about (n + m) eps
    sum |products| of the exact one (each product rounds m - 1 times, each addition once, the
    final cast once; eps as a relative error bound is twice the unit roundoff, so this is already
    generous); numpy's and kjarni's results each lie that close, so they are within 2 (n + m) eps
    sum |products| of each other (twice that for complex products, whose rounding is up to sqrt(5)
    times a real one's). n is einsum of ones (how many products make each element), sum |products|
    einsum of the absolute values, both exact enough in float64."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        return None
    ones = [numpy.ones(numpy.shape(x)) for x in operands]
    absolutes = [numpy.abs(numpy.asarray(x)).astype(numpy.float64) for x in operands]
    n = numpy.einsum(subscripts, *ones)
    m = len(operands)
    scale = 4 if dtype.kind == "c" else 2
    return scale * (n + m) * numpy.finfo(dtype).eps * numpy.einsum(subscripts, *absolutes)


def same(queue, got, want, atol=None):
    """got is a kjarni Array with want's dtype and shape and its values (exactly, or within atol)."""
    assert isinstance(got, kjarni.Array), type(got)
    got, want = got.get(queue), numpy.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if atol is None:
        numpy.testing.assert_array_equal(got, want)
    else:
        difference = numpy.abs(got.astype(numpy.complex128) - want.astype(numpy.complex128))
        assert numpy.all(difference <= atol), f"{got[difference > atol]} != {want[difference > atol]}"


def check(queue, subscripts, operands, **kwargs):
    """numpy.einsum of the device copies of `operands` (host numbers stay as they are) as numpy's of them."""
    want = numpy.einsum(subscripts, *operands, **kwargs)
    got = numpy.einsum(subscripts, *[device(queue, x) if isinstance(x, numpy.ndarray) else x for x in operands],
                       **kwargs)
    same(queue, got, want, bound(subscripts, operands, numpy.asarray(want).dtype))
    return got


# (subscripts, operand shapes): every form the tests run in float32
CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),                  # matmul
    ("ij,jk", [(3, 4), (4, 5)]),                      # implicit matmul
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),         # batched matmul
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),      # ellipsis, broadcast batch
    ("...ij,...jk", [(2, 1, 3, 4), (3, 4, 2)]),       # implicit ellipsis: broadcast dims first
    ("i,i->", [(7,)]*2),                              # dot
    ("i,i", [(7,)]*2),
    ("i,j->ij", [(3,), (4,)]),                        # outer
    ("i,j", [(3,), (4,)]),
    ("ii", [(4, 4)]),                                 # trace
    ("ii->", [(4, 4)]),
    ("ii->i", [(4, 4)]),                              # diagonal
    ("iij->ij", [(3, 3, 2)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij->ji", [(3, 4)]),                             # transpose
    ("ji", [(3, 4)]),                                 # implicit transpose (letters sorted)
    ("ijk->kij", [(2, 3, 4)]),
    ("ij->", [(3, 4)]),                               # sums
    ("ij->j", [(3, 4)]),
    ("ijk->i", [(2, 3, 4)]),
    ("ij,ij->ij", [(3, 4)]*2),                        # Hadamard
    ("ij,ij->", [(3, 4)]*2),
    ("ij,ji->", [(3, 4), (4, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),       # chains
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 5)]),
    ("i,ij,j->", [(3,), (3, 4), (4,)]),
    ("ii,ij->j", [(3, 3), (3, 4)]),                   # repeated letters, in one and two operands
    ("ij,ij,ij->i", [(3, 4)]*3),
    ("bi,bj->bij", [(2, 3), (2, 4)]),                 # batched outer product (nothing contracted)
    ("ik,jk->", [(2, 3), (4, 3)]),                    # letters only in one operand summed first
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("...i,...i", [(2, 1, 4), (3, 4)]),               # size-1 ellipsis dims broadcast
    ("ij,ij->ij", [(3, 1), (1, 4)]),                  # size-1 letter dims broadcast
    ("ij,jk->ik", [(3, 1), (4, 5)]),
    ("i...->...", [(3, 2, 2)]),
    ("...", [(2, 3)]),
    ("Ab,bA->A", [(2, 3), (3, 2)]),                   # upper case letters
    (" i j , j k -> i k ", [(3, 4), (4, 5)]),         # spaces ignored
    ("i,->i", [(3,), ()]),                            # 0-d operands
    ("->", [()]),
]


def test_einsum_forms_as_numpys(queue, rng):
    for subscripts, shapes in CASES:
        check(queue, subscripts, [random(rng, s, numpy.float32) for s in shapes])


DTYPES = [numpy.int32, numpy.bool_, numpy.float16, numpy.float32, numpy.float64, numpy.complex64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
def test_einsum_dtypes_as_numpys(queue, rng, dtype):
    # numpy's einsum keeps the operands' type: an int32 sum stays int32, a bool one is an OR of ANDs.
    for subscripts, shapes in [("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                               ("i,j->ij", [(3,), (4,)]), ("ii", [(4, 4)]), ("ii->i", [(4, 4)]), ("ij->j", [(3, 4)]),
                               ("ij,ij->", [(3, 4)]*2), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
                               ("...i,...i", [(2, 1, 4), (3, 4)])]:
        got = check(queue, subscripts, [random(rng, s, dtype) for s in shapes])
        assert got.dtype == dtype


def test_einsum_zero_dimensional_results_are_arrays(queue, rng):
    # (numpy's own einsum gives a numpy scalar here; on kjarni arrays a 0-d Array stays on the device)
    x = random(rng, (3, 4), numpy.float64)
    got = numpy.einsum("ij->", device(queue, x))
    assert isinstance(got, kjarni.Array) and got.shape == ()


def test_einsum_empty_dimensions_as_numpys(queue, rng):
    for subscripts, shapes in [("ij,jk->ik", [(2, 0), (0, 3)]), ("ij,jk->ik", [(0, 3), (3, 2)]),
                               ("i,i->", [(0,), (0,)]), ("ij->", [(0, 3)]), ("ij->j", [(0, 3)]), ("ii->i", [(0, 0)]),
                               ("bij,bjk->bik", [(0, 2, 3), (0, 3, 2)]), ("i,j->ij", [(0,), (3,)])]:
        for dtype in (numpy.float32, numpy.int32):
            check(queue, subscripts, [random(rng, s, dtype) for s in shapes])


def test_einsum_mixed_operands_as_numpys(queue, rng):
    # Host arrays and Python numbers go up as numpy converts them (a Python float is float64 there).
    a, b = random(rng, (3, 4), numpy.float32), random(rng, (4, 2), numpy.float32)
    check(queue, "ij,jk,->ik", [a, b, 2.5])
    want = numpy.einsum("ij,jk,->ik", a, b, 2.5)
    limit = bound("ij,jk,->ik", [a, b, 2.5], want.dtype)
    same(queue, numpy.einsum("ij,jk,->ik", device(queue, a), b, 2.5), want, limit)
    same(queue, numpy.einsum("ij,jk,->ik", a, device(queue, b), 2.5), want, limit)
    i = random(rng, (2, 3), numpy.int32)
    same(queue, numpy.einsum("ij,->ij", device(queue, i), 3), numpy.einsum("ij,->ij", i, 3))  # int64, as numpy's


def test_einsum_sublist_form_as_numpys(queue, rng):
    a, b = random(rng, (3, 4), numpy.float64), random(rng, (4, 5), numpy.float64)
    da, db = device(queue, a), device(queue, b)
    limit = bound("ij,jk->ik", [a, b], numpy.float64)
    same(queue, numpy.einsum(da, [0, 1], db, [1, 2], [0, 2]), numpy.einsum(a, [0, 1], b, [1, 2], [0, 2]), limit)
    same(queue, numpy.einsum(da, [0, 1], db, [1, 2]), numpy.einsum(a, [0, 1], b, [1, 2]), limit)
    c = random(rng, (2, 3, 3), numpy.float64)
    same(queue, numpy.einsum(device(queue, c), [..., 1, 1], [..., 1]), numpy.einsum(c, [..., 1, 1], [..., 1]))
    same(queue, numpy.einsum(da, [30, 0], [0, 30]), numpy.einsum(a, [30, 0], [0, 30]))


def test_einsum_dtype_casting_and_out_as_numpys(queue, rng):
    a, b = random(rng, (3, 4), numpy.float32), random(rng, (4, 5), numpy.float32)
    check(queue, "ij,jk->ik", [a, b], dtype=numpy.float64)
    check(queue, "ij,jk->ik", [a, b], dtype=numpy.float16, casting="unsafe")
    check(queue, "ij->", [a], dtype=numpy.complex64)
    check(queue, "ij,jk", [random(rng, (3, 4), numpy.int32), random(rng, (4, 5), numpy.int32)], dtype=numpy.float64)
    check(queue, "ij,jk", [a, b], optimize=True)
    check(queue, "ij,jk", [a, b], order="C")
    want = numpy.einsum("ij,jk->ik", a, b)
    out = device(queue, numpy.full((3, 5), 7.0))
    got = numpy.einsum("ij,jk->ik", device(queue, a), device(queue, b), out=out)
    assert got is out
    same(queue, out, want.astype(numpy.float64), bound("ij,jk->ik", [a, b], numpy.float32))
    out = device(queue, numpy.full((), 7, numpy.int64))
    counts = device(queue, numpy.arange(5, dtype=numpy.int32))
    numpy.einsum("i,i", counts, counts, out=out)
    same(queue, out, numpy.array(30, numpy.int64))
    # numpy's casting rules raise TypeError (kjarni's ArgumentTypeError), bad shapes ValueError
    for call in (lambda x, y, o: numpy.einsum("ij,jk", x, y, dtype=numpy.float16),
                 lambda x, y, o: numpy.einsum("ij,jk", x, y, casting="no", dtype=numpy.float64),
                 lambda x, y, o: numpy.einsum("ij,jk", x, y, out=o(numpy.empty((3, 5), numpy.float16))),
                 lambda x, y, o: numpy.einsum("ij,jk", x, y, out=o(numpy.empty((5, 3), numpy.float32))),
                 lambda x, y, o: numpy.einsum("ij,jk", x, y, casting="sometimes")):
        expect = raised(lambda: call(a, b, lambda h: h))
        with pytest.raises(expect):
            call(device(queue, a), device(queue, b), lambda h: device(queue, h))


def raised(call):
    try:
        call()
    except (ValueError, TypeError) as e:
        return ValueError if isinstance(e, ValueError) else TypeError
    raise AssertionError("numpy raised nothing")


BAD = [
    ("ij,jk->ik", [(3, 4)]),          # more subscripts than operands
    ("ij", [(3, 4), (3, 4)]),         # more operands than subscripts
    ("i1", [(3, 4)]),                 # not a letter
    ("ij->k", [(3, 4)]),              # an output letter no input has
    ("ij->ii", [(3, 4)]),             # an output letter twice
    ("ijk", [(3, 4)]),                # more subscripts than dimensions
    ("i", [(3, 4)]),                  # fewer, no ellipsis
    ("..i", [(3, 4)]),                # a '.' outside an ellipsis
    ("...i...", [(3, 4)]),            # two ellipses
    ("...->", [(3, 4)]),              # broadcast dims missing from the output
    ("ij->->", [(3, 4)]),
    ("ii", [(3, 4)]),                 # a diagonal of unequal dimensions
    ("ij,jk", [(3, 4), (3, 4)]),      # contracted dimensions differ
    ("ij,ij->ij", [(3, 4), (2, 4)]),  # dimensions that cannot broadcast
]


def test_einsum_invalid_subscripts_raise_as_numpy(queue, rng):
    for subscripts, shapes in BAD:
        operands = [random(rng, s, numpy.float32) for s in shapes]
        expect = raised(lambda: numpy.einsum(subscripts, *operands))
        with pytest.raises(expect, match="numpy.einsum"):
            numpy.einsum(subscripts, *[device(queue, x) for x in operands])
    a = random(rng, (3, 4), numpy.float32)
    for sublists in (([0, 1.5],), ([0, 60],), ([0, 1], [0, "x"])):
        expect = raised(lambda: numpy.einsum(a, *sublists))
        with pytest.raises(expect):
            numpy.einsum(device(queue, a), *sublists)


def test_einsum_refuses_what_kjarni_leaves_out(queue, rng):
    a = random(rng, (3, 4), numpy.float32)
    with pytest.raises(kjarni.ArgumentTypeError, match="order"):
        numpy.einsum("ij->ji", device(queue, a), order="F")
    with pytest.raises(kjarni.ArgumentTypeError, match="out"):
        numpy.einsum("ij->ji", device(queue, a), out=numpy.empty((4, 3), numpy.float32))


def test_einsum_of_one_operand_summing_nothing_is_numpys_view(queue, rng):
    """numpy's einsum of one operand with nothing summed and no out= returns a view of it (a
    transpose, a diagonal, the operand itself) in its own dtype, whatever dtype= and casting= say
    (numpy's get_single_op_view); kjarni gave the dtype asked for, or refused the cast (found by the
    Python fuzzer, seed 1: einsum('...PP->...P', int8, dtype=complex128) was complex128)."""
    a = random(rng, (3, 3), numpy.int8)
    f = random(rng, (2, 3, 3), numpy.float32)
    for subscripts, x, options in (("ij->ji", a, {"dtype": numpy.complex128}), ("ii->i", a, {"dtype": "float16"}),
                                   ("ij", a, {"dtype": numpy.float64}), ("...ii->...i", f, {"dtype": "int8"}),
                                   ("Zh->hZ", f[0], {"dtype": "bool", "casting": "safe"}),
                                   ("ij->ij", a, {"dtype": numpy.complex64, "optimize": True})):
        want = numpy.einsum(subscripts, x, **options)
        got = numpy.einsum(subscripts, device(queue, x), **options)
        assert numpy.dtype(got.dtype) == want.dtype == x.dtype
        assert numpy.array_equal(got.get(), want)
    # What is summed (a trace, a row sum) takes dtype= as before; the options' spellings are checked.
    assert numpy.dtype(numpy.einsum("ii", device(queue, a), dtype=numpy.complex128).dtype) == numpy.complex128
    with pytest.raises(TypeError):
        numpy.einsum("ij->ji", device(queue, a), dtype="bogus")
    with pytest.raises(ValueError):
        numpy.einsum("ij->ji", device(queue, a), casting="sometimes")


def test_einsum_into_out_computes_in_the_common_type_with_out(queue, rng):
    """Without dtype=, numpy's einsum computes in the common type of the operands and out= (its
    iterator's common dtype): uint16 products summed into a float64 out= do not wrap; kjarni summed
    in uint16 (found by the Python fuzzer, seed 3: '...ho,...oM->...hM', uint16, out= float64)."""
    a = numpy.array([200, 200], numpy.uint8)
    x = rng.integers(0, 65535, (4, 3, 3)).astype(numpy.uint16)
    y = rng.integers(0, 65535, (4, 3, 2)).astype(numpy.uint16)
    for subscripts, ops, odt in (("i,i", (a, a), numpy.float64), ("i,i", (a, a), numpy.int16),
                                 ("i,i->i", (a, a), numpy.float32), ("...ho,...oM->...hM", (x, y), numpy.float64),
                                 ("bij,bjk->bik", (x, y), numpy.int64)):
        want = numpy.zeros(numpy.einsum(subscripts, *ops).shape, odt)
        numpy.einsum(subscripts, *ops, out=want)
        out = device(queue, numpy.zeros(want.shape, odt))
        assert numpy.einsum(subscripts, *[device(queue, o) for o in ops], out=out) is out
        assert numpy.array_equal(out.get(), want), (subscripts, odt)
