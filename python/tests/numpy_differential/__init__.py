"""A differential fuzzer of kjarni's Python layer against numpy.

Random programs (programs.py) of one operation each — operators with Python and numpy scalars and
0-d arrays on either side, comparisons, ufuncs, in-place operators, indexing and assignment,
reductions and scans with their keywords, methods, conversions and numpy's protocols, the other
ufuncs and the numpy functions kjarni composes in Python (functions.py) — run with
numpy arrays and with kjarni arrays (compare.py). Their outcomes must agree: both raise, or the
same dtype, shape and values (exact for integers, booleans and selections; floats within the
bounds of bounds.py). Documented differences (docs/numpy-differences.md) are recognised by name
and counted, as are the documented differences that the test names (its skip function).

    run(queue, seed, seconds, max_programs, skip=...) -> Report
"""

import time
from collections import Counter

import numpy as np

from . import compare, programs


class Report:
    def __init__(self, seed):
        self.seed = seed
        self.programs = 0
        self.agreed = 0
        self.both_raised = Counter()     # (numpy's exception, kjarni's exception)
        self.known = Counter()           # docs/numpy-differences.md's class -> count
        self.skipped = Counter()         # a documented difference's name -> count
        self.self_checks = 0
        self.differences = []            # (index, program, message)
        self.by_operation = Counter()
        self.seconds = 0.0

    def summary(self):
        lines = [f"seed {self.seed}: {self.programs} programs in {self.seconds:.1f} s "
                 f"({self.programs / max(self.seconds, 1e-9):.1f}/s), {self.agreed} agreed, "
                 f"{len(self.differences)} differences, {self.self_checks} self-checks caught"]
        if self.known:
            lines.append("documented differences: " + ", ".join(f"{k} {v}" for k, v in sorted(self.known.items())))
        if self.skipped:
            lines.append("counted, not failed (documented): " + ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items())))
        if self.both_raised:
            lines.append("both raised: " + ", ".join(f"{a}/{b} {n}" for (a, b), n in self.both_raised.most_common(12)))
        return "\n".join(lines)

    def describe(self, limit=10):
        out = []
        for index, program, message in self.differences[:limit]:
            out.append(f"--- program {index} of seed {self.seed} ({program.name}): {message}\n{program.source()}")
        return "\n".join(out)


def run(queue, seed, seconds=60.0, max_programs=None, skip=None, self_check=True, on_difference=None):
    """Random programs of `seed` until `seconds` pass (or `max_programs`). `skip(program,
    numpy_outcome, kjarni_outcome)` names a documented difference that explains one (the program
    then counts as skipped), or returns None."""
    report = Report(seed)
    start = time.monotonic()
    index = 0
    while time.monotonic() - start < seconds and (max_programs is None or index < max_programs):
        rng = np.random.default_rng([seed, index])
        program = programs.random_program(rng)
        report.programs += 1
        report.by_operation[program.name.split()[0]] += 1
        np_outcome = compare.run_numpy(program)
        kj_outcome = compare.run_kjarni(program, queue)
        message = compare.compare_outcomes(program, np_outcome, kj_outcome)
        if message is None:
            report.agreed += 1
            if not np_outcome[0]:
                report.both_raised[(type(np_outcome[1]).__name__, type(kj_outcome[1]).__name__)] += 1
            elif self_check:
                moved = compare.perturbed(program, kj_outcome[1], compare._namespace(program, "numpy", None))
                if moved is not None:
                    if compare.compare_outcomes(program, np_outcome, (True, moved)) is None:
                        report.differences.append((index, program, "self-check: a result moved past its bound "
                                                   "was not caught by the comparison"))
                    else:
                        report.self_checks += 1
        else:
            known = program.known(np_outcome, kj_outcome, program) if program.known else None
            reason = skip(program, np_outcome, kj_outcome) if (known is None and skip is not None) else None
            if known is not None:
                report.known[known] += 1
            elif reason is not None:
                report.skipped[reason] += 1
            else:
                report.differences.append((index, program, message))
                if on_difference is not None:
                    on_difference(index, program, message)
        index += 1
    report.seconds = time.monotonic() - start
    return report
