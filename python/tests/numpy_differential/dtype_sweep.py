"""Every input dtype x ``dtype=`` x reduction or scan x axis against numpy, on small random arrays
with one special value each (inf, -inf, NaN, -0.0, 1e5, 2e-8, 0.5): an exhaustive companion to the
random programs, for the conversions a ``dtype=`` makes (it found mean with an integer dtype= and
sum with dtype=float16 of complex arrays). Not a pytest module: about 1,500 kernels on a CPU device
take a few minutes.

    POCL_DEVICES=pthread python python/tests/numpy_differential/dtype_sweep.py [--seed N]
        [--ops sum,prod,mean,cumsum,cumprod,nansum,nanprod,nanmean]

Prints each difference (dtypes, op, axis, both results, the input) and a count; exits 1 when there
was one. Results agree when both raise, or both give the same dtype and shape and every element is
equal, both NaN (a complex NaN, any part NaN, meets any complex NaN: which part a combination of
infinities makes NaN depends on the order of the products), or within 64 ulps of the result's
dtype (the orders of the sums differ).
"""

import argparse
import itertools
import sys
import warnings

import numpy as np

import kjarni

INPUTS = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]
TARGETS = [None, "bool", "int8", "uint16", "int32", "int64", "uint64", "float16", "float32", "float64",
           "complex64", "complex128"]


def random_input(rng, dtype):
    if dtype == "bool":
        return rng.integers(0, 2, (3, 5)).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), (3, 5)).astype(dtype)
    x = rng.normal(0, 3, (3, 5))
    x.flat[rng.integers(0, 15)] = rng.choice([np.inf, -np.inf, np.nan, -0.0, 1e5, 2e-8, 0.5])
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(0, 3, (3, 5))
    return x.astype(dtype)


def difference(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{got.dtype}{got.shape} against numpy's {want.dtype}{want.shape}"
    if want.dtype.kind in "biu":
        return None if np.array_equal(got, want) else f"{got} against numpy's {want}"
    tol = 64 * np.finfo(want.dtype).eps
    if want.dtype.kind == "c":
        nan_g = np.isnan(got.real) | np.isnan(got.imag)
        nan_w = np.isnan(want.real) | np.isnan(want.imag)
        parts = (np.real, np.imag)
    else:
        nan_g, nan_w, parts = np.isnan(got), np.isnan(want), (lambda v: v,)
    ok = nan_g & nan_w
    close = np.ones(want.shape, bool)
    for part in parts:
        x, y = part(got).astype(np.float64), part(want).astype(np.float64)
        close &= (x == y) | (np.abs(x - y) <= tol * np.maximum(np.abs(x), np.abs(y)) + np.finfo(want.dtype).tiny)
    return None if (ok | (close & ~nan_g & ~nan_w)).all() else f"{got} against numpy's {want}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ops", default="sum,prod,mean,cumsum,cumprod")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    context = kjarni.Context.from_devices([kjarni.any_api.platforms[0].devices[0]])
    queue = kjarni.Queue(context.device)
    cases = found = 0
    for source, target, op, axis in itertools.product(INPUTS, TARGETS, args.ops.split(","), [None, 1]):
        host = random_input(rng, source)
        array = kjarni.Array.from_host(queue, host)
        kwargs = ({} if target is None else {"dtype": target}) | ({} if axis is None else {"axis": axis})
        outcomes = []
        for operand in (host, array):
            try:
                with np.errstate(all="ignore"):
                    value = getattr(np, op)(operand, **kwargs)
                outcomes.append((True, value.get(queue) if isinstance(value, kjarni.Array) else value))
            except Exception as e:  # noqa: BLE001 (any exception is an outcome to compare)
                outcomes.append((False, e))
        cases += 1
        (np_ok, want), (kj_ok, got) = outcomes
        message = (None if not np_ok and not kj_ok else
                   f"numpy {'gave' if np_ok else 'raised'} {want!r:.120}, kjarni {'gave' if kj_ok else 'raised'} "
                   f"{got!r:.160}" if np_ok != kj_ok else difference(got, want))
        if message:
            found += 1
            print(f"{source} dtype={target} {op} axis={axis}: {message}\n    input {host.tolist()}")
    print(f"seed {args.seed}: {cases} cases, {found} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
