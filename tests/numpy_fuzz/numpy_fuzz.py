#!/usr/bin/env python3
"""The differential fuzzer against numpy (README.md here): random array programs run by kjarni
(the C++ runner, kjarni_numpy_runner) and by numpy, compared; every difference must be of a known
class (known_differences.json, docs/numpy-differences.md). A new one is shrunk and printed as a
reproduction, and fails the run.

  numpy_fuzz.py --runner build-ci/tests/numpy_fuzz/kjarni_numpy_runner [--device SPEC] [--gpu-forms]
                [--seed S] [--seconds N] [--batch B] [--workdir DIR] [--report-known]
"""

import argparse
import collections
import glob
import concurrent.futures
import json
import os
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz import known, render  # noqa: E402
from fuzz.compare import Counts, compare  # noqa: E402
from fuzz.generate import generate  # noqa: E402
from fuzz.oracle import run_program  # noqa: E402
from fuzz.runner import Runner  # noqa: E402
from fuzz.shrink import shrink  # noqa: E402


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(type(x))


def case_json(program, data):
    """A reproduction as JSON: the program and its inputs (the bytes in hex, exact; the values for
    reading), what --replay takes."""
    inputs = {k: {"dtype": str(v.dtype), "shape": list(v.shape), "hex": np.ascontiguousarray(v).tobytes().hex(),
                  "values": [str(x) for x in v.reshape(-1)]}
              for k, v in data.items() if any(i["name"] == k for i in program["inputs"])}
    return json.dumps({"program": program, "data": inputs}, default=_json_default)


def load_case(path):
    with open(path) as f:
        case = json.load(f)
    data = {k: np.frombuffer(bytes.fromhex(v["hex"]), dtype=v["dtype"]).reshape(v["shape"]).copy()
            for k, v in case["data"].items()}
    return case["program"], data, case.get("expect")


def reproduction(program, data):
    return case_json(program, data) + "\n" + render.program(program, data)


def replay(paths, runner):
    """Runs saved cases (tests/numpy_fuzz/cases/*.json: a reproduction and the class it shows,
    "expect", or none for a fixed difference); returns the number that no longer behave as
    expected and, of those, the number of fixed differences that came back (regressions)."""
    cases = [load_case(p) for p in paths]
    results = runner.run([dict(p, id=k) for k, (p, _, _) in enumerate(cases)], [d for _, d, _ in cases])
    changed = regressed = 0
    for k, (path, (program, data, expect)) in enumerate(zip(paths, cases)):
        diff = compare(dict(program, id=k), results[k], run_program(program, data), Counts())
        got = (known.classify(program, data, diff) or ["NEW"]) if diff else []
        ok = (expect in got) if expect else not got
        changed += not ok
        regressed += not ok and not expect
        state = "as expected" if ok else "CHANGED" if expect else "REGRESSION"
        print(f"numpy-fuzz: replay {os.path.basename(path)}: expected {expect or 'no difference'}, "
              f"got {', '.join(got) or 'no difference'}{(': ' + diff.summary()[:300]) if diff else ''} ({state})")
    return changed, regressed


def perturbed(program, kj, npy):
    """kjarni's result with one decided element of its first non-empty snapshot moved just past
    the bound (an integer by one, a float by twice its bound plus an ulp, a NaN made a number),
    or None where nothing can be moved. The comparison must then find a difference: that proves
    the checks can fail."""
    for k, s in enumerate(kj.get("snapshots", [])):
        ref = next((n for n in npy["snapshots"] if n["op"] == s["op"] and n["name"] == s["name"]), None)
        if ref is None or s["value"].size == 0:
            continue
        err = np.broadcast_to(ref["value"].err, s["value"].shape)
        decided = np.argwhere(~np.isinf(err))
        if not len(decided):
            continue
        idx = tuple(decided[0])
        v = s["value"].copy()
        x = v[idx]
        if v.dtype.kind == "b":
            v[idx] = not x
        elif v.dtype.kind in "iu":
            v[idx] = x + 1 if x < np.iinfo(v.dtype).max else x - 1
        else:
            with np.errstate(all="ignore"):
                mag = abs(x) if np.isfinite(x) else 1.0
                step = 2 * float(err[idx]) + 4 * float(np.finfo(v.real.dtype).eps) * (mag + 1)
                v[idx] = 1.0 if np.isnan(x) or np.isinf(x) else x + step
                if v[idx] == x:
                    continue
        out = dict(kj, snapshots=list(kj["snapshots"]))
        out["snapshots"][k] = dict(s, value=v)
        return out
    return None


def main():
    # numpy's warnings (casts of complex to real, overflow in casts) are the programs' business.
    warnings.filterwarnings("ignore")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", required=True, help="the kjarni_numpy_runner executable")
    ap.add_argument("--device", default=os.environ.get("KJARNI_TEST", ""),
                    help="device specifier (KJARNI_TEST's syntax; default $KJARNI_TEST, else the first device)")
    ap.add_argument("--gpu-forms", action="store_true",
                    help="a CPU device runs the kernels' GPU forms (what a GPU runs), not its CPU forms")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=180, help="time budget (programs are generated until it is spent)")
    ap.add_argument("--batch", type=int, default=20, help="programs per runner process")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="runner processes side by side (compiling kernels is what takes the time on PoCL)")
    ap.add_argument("--max-programs", type=int, default=0, help="stop after this many programs (0: no limit)")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--report-known", action="store_true",
                    help="also shrink and print one reproduction per known class found")
    ap.add_argument("--shrink-seconds", type=float, default=120, help="time for shrinking new differences")
    ap.add_argument("--replay", nargs="*", default=None, metavar="CASE",
                    help="run saved cases (JSON reproductions with the class they show) instead of random programs; "
                         "none named: every tests/numpy_fuzz/cases/*.json")
    ap.add_argument("--save-cases", default=None, metavar="DIR",
                    help="write each shrunk reproduction there as a case file (--replay takes them)")
    args = ap.parse_args()

    entries = known.load()
    workdir = args.workdir or tempfile.mkdtemp(prefix="numpy-fuzz-")
    runners = [Runner(os.path.abspath(args.runner), args.device, os.path.join(workdir, f"job{j}"),
                      gpu_forms=args.gpu_forms)
               for j in range(args.jobs)]
    runner = runners[0]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    if args.replay is not None:
        here = os.path.dirname(os.path.abspath(__file__))
        paths = args.replay or sorted(glob.glob(os.path.join(here, "cases", "*.json")))
        changed, regressed = replay(paths, runner)
        print(f"numpy-fuzz: {len(paths) - changed} of {len(paths)} cases as expected"
              + (" (a case that changed: its class fixed? then remove it and its entry)" if changed > regressed else ""))
        # A case of a fixed difference (no "expect") that differs again fails the run; a listed
        # class that no longer shows is a hint.
        if regressed:
            print(f"numpy-fuzz: FAILED: {regressed} fixed differences are back")
            return 1
        return 0
    rng = np.random.default_rng(args.seed)
    counts = Counts()
    found = collections.Counter()
    examples = {}
    new = []
    self_checks = [0, 0]  # perturbed results compared, of which wrongly accepted
    start = time.monotonic()
    next_id = 0
    while time.monotonic() - start < args.seconds and not (args.max_programs and next_id >= args.max_programs):
        count = args.batch * args.jobs
        if args.max_programs:
            count = min(count, args.max_programs - next_id)
        batch = [generate(rng, next_id + k) for k in range(count)]
        next_id += len(batch)
        parts = [batch[j::args.jobs] for j in range(args.jobs)]
        results = {}
        for r in pool.map(lambda jp: jp[0].run([p for p, _ in jp[1]], [d for _, d in jp[1]]), zip(runners, parts)):
            results.update(r)
        for program, data in batch:
            npy = run_program(program, data)
            diff = compare(program, results[program["id"]], npy, counts)
            if diff is None:
                bad = perturbed(program, results[program["id"]], npy)
                if bad is not None:
                    self_checks[0] += 1
                    if compare(program, bad, npy, Counts()) is None:
                        self_checks[1] += 1
                        print(f"numpy-fuzz: SELF-CHECK FAILED: a perturbed result of program {program['id']} "
                              f"passed the comparison\n{reproduction(program, data)}")
                continue
            classes = known.classify(program, data, diff)
            key = classes[0] if classes else "NEW"
            found[key] += 1
            if classes:
                examples.setdefault(key, (program, data, diff))
            else:
                new.append((program, data, diff))
    elapsed = time.monotonic() - start

    print(f"numpy-fuzz: seed {args.seed}, {elapsed:.0f} s: {counts.programs} programs, {counts.operations} operations "
          f"compared, {counts.arrays} arrays, {counts.elements} element checks ({counts.skipped} undecidable, "
          f"skipped); {sum(found.values())} differences: "
          + (", ".join(f"{k} x{v}" for k, v in sorted(found.items())) or "none"))
    print(f"numpy-fuzz: self-check: {self_checks[0]} results perturbed just past their bound, "
          f"{self_checks[0] - self_checks[1]} caught")

    shrink_deadline = time.monotonic() + args.shrink_seconds
    to_show = [(p, d, diff, None) for p, d, diff in new[:5]]
    if args.report_known:
        to_show += [(p, d, diff, cid) for cid, (p, d, diff) in sorted(examples.items())]
    for program, data, diff, cid in to_show:
        def same(p, d, df, cid=cid, diff=diff):
            if df.kind != diff.kind:
                return False
            cls = known.classify(p, d, df)
            return (cid in cls) if cid else not cls
        if time.monotonic() < shrink_deadline:
            program, data = shrink(program, data, runner, same)
            res = runner.run([dict(program, id=0)], [data])
            diff = compare(program, res[0], run_program(program, data), Counts()) or diff
        title = f"known difference {cid}" if cid else "NEW DIFFERENCE (not in known_differences.json)"
        if args.save_cases:
            os.makedirs(args.save_cases, exist_ok=True)
            name = cid or f"new-{program['id']}"
            with open(os.path.join(args.save_cases, f"{name}.json"), "w") as f:
                case = json.loads(case_json(program, data))
                case["expect"] = cid
                json.dump(case, f, indent=1)
        print(f"\n==== {title}: {diff.summary()}\n{reproduction(program, data)}\n")

    seen = set(found)
    unseen = [e["id"] for e in entries if e["id"] not in seen]
    if unseen:
        print(f"numpy-fuzz: hint: listed classes not seen in this run (fixed? or rare): {', '.join(unseen)}")
    if new or self_checks[1]:
        print(f"numpy-fuzz: FAILED: {len(new)} programs show differences no known class claims, "
              f"{self_checks[1]} perturbed results were not caught")
        return 1
    print(f"{counts.programs} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
