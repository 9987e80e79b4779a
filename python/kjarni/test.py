"""A self-test of the installed package on this machine's devices (pygpu's ``test()``):

    python -m kjarni.test                 # every device of every available API
    python -m kjarni.test opencl cuda:0   # an API, or an API and a device number

On each device it compiles and runs a kernel, an expression, a reduction and a template with a
function module, and checks each result against numpy on random data. Prints one line per check
and exits with 1 when any failed (or when no device was found), 0 otherwise. ``kjarni.test.run()``
does the same from Python and returns the number of failures.

From the command line each device is checked in a process of its own: a driver that aborts or
crashes the process (a signal, as glibc's ``free(): invalid pointer`` abort) fails that device's
line, with the signal and the end of what the process printed, and the other devices are still
checked; ``--in-process`` checks them all in this process, as ``run()`` does."""

import os
import signal
import subprocess
import sys
import time
import traceback

import numpy

import kjarni


def _devices(selection):
    """(label, device) for the selected devices: ``api`` or ``api:index`` entries (the index counts
    the API's devices over its platforms), all when empty. Only the APIs named are loaded: a check
    of ``opencl`` does not start CUDA in the process. An API that is not available has no devices."""
    names = list(dict.fromkeys(entry.partition(":")[0] for entry in selection))
    if names:
        apis = []
        for name in names:
            try:
                apis.extend(kjarni.API.all_by_shortcut(name))
            except kjarni.Error:
                pass
    else:
        apis = kjarni.API.all_available()
    found = {}  # api shortcut -> its devices, in order
    for api in apis:
        for platform in api.platforms:
            found.setdefault(api.shortcut, []).extend(platform.devices)
    if not selection:
        return [(f"{api}:{i}", d) for api, devices in found.items() for i, d in enumerate(devices)]
    chosen = []
    for entry in selection:
        api, _, number = entry.partition(":")
        of_api = found.get(api, [])
        picked = list(enumerate(of_api)) if not number else list(enumerate(of_api))[int(number):int(number) + 1]
        chosen.extend((f"{api}:{i}", d) for i, d in picked)
    return chosen


def _kernel(queue, rng):
    n = 1000
    a = rng.standard_normal(n).astype(numpy.float32)
    b = rng.standard_normal(n).astype(numpy.float32)
    program = kjarni.Program(queue.device, """
    KERNEL void multiply(GLOBAL_MEM float *dest, GLOBAL_MEM const float *a, GLOBAL_MEM const float *b, int n)
    {
        const SIZE_T i = get_global_id(0);
        if (i < n) dest[i] = a[i] * b[i];
    }""")
    dest = kjarni.Array.empty(queue.device, n, numpy.float32)
    program.kernel.multiply(queue, 1024, None, dest, kjarni.Array.from_host(queue, a),
                            kjarni.Array.from_host(queue, b), numpy.int32(n))
    return numpy.array_equal(dest.get(queue), a * b)  # one rounding on both sides: exact


def _expression(queue, rng):
    x = rng.standard_normal((64, 33)).astype(numpy.float32)
    y = rng.standard_normal((64, 33)).astype(numpy.float32)
    dx, dy = kjarni.Array.from_host(queue, x), kjarni.Array.from_host(queue, y)
    result = kjarni.evaluate(queue, numpy.float32(2) * dx + dy).get(queue)
    # 2x is exact, so one rounding of the sum: exact whether or not the device fuses a multiply-add.
    return numpy.array_equal(result, numpy.float32(2) * x + y)


def _reduction(queue, rng):
    x = rng.uniform(-1, 1, (128, 77)).astype(numpy.float32)
    dx = kjarni.Array.from_host(queue, x)
    ok = numpy.array_equal(dx.max(axis=1).get(queue), x.max(axis=1))
    # Sums of 128 values of |x| <= 1: float32 rounding of partial sums bounds the error by ~128 * 2^-24.
    return ok and numpy.allclose(dx.sum(axis=0).get(queue), x.sum(axis=0, dtype=numpy.float64), atol=2e-5)


def _template(queue, rng):
    a = (rng.standard_normal(256) + 1j * rng.standard_normal(256)).astype(numpy.complex64)
    b = (rng.standard_normal(256) + 1j * rng.standard_normal(256)).astype(numpy.complex64)
    program = kjarni.Program(queue.device, """
    KERNEL void multiply(GLOBAL_MEM ${ctype} *dest, GLOBAL_MEM ${ctype} *a, GLOBAL_MEM ${ctype} *b)
    {
        const SIZE_T i = get_global_id(0);
        dest[i] = ${mul}(a[i], b[i]);
    }""", render_globals=dict(ctype=kjarni.dtypes.ctype(numpy.complex64),
                              mul=kjarni.functions.mul(numpy.complex64, numpy.complex64)))
    dest = kjarni.Array.empty(queue.device, 256, numpy.complex64)
    program.kernel.multiply(queue, 256, None, dest, kjarni.Array.from_host(queue, a), kjarni.Array.from_host(queue, b))
    expected = a * b
    return numpy.linalg.norm(dest.get(queue) - expected) / numpy.linalg.norm(expected) <= 1e-6


CHECKS = [("kernel", _kernel), ("expression", _expression), ("reduction", _reduction), ("template", _template)]


def run(selection=(), out=sys.stdout):
    """Runs the checks on the selected devices; returns the number of failures (a device that cannot
    be found or a check that raises counts as one)."""
    print(f"kjarni {kjarni.__version__} from {kjarni.__file__}", file=out)
    devices = _devices(list(selection))
    if not devices:
        print("no device found (neither a CUDA driver nor an OpenCL platform)", file=out)
        return 1
    rng = numpy.random.default_rng()
    failures = 0
    for label, device in devices:
        try:
            queue = kjarni.Queue(kjarni.Context.from_devices([device]).device)
        except kjarni.Error as e:
            print(f"{label} {device.name}: FAILED to make a context: {e}", file=out)
            failures += 1
            continue
        for name, check in CHECKS:
            start = time.perf_counter()
            try:
                ok = check(queue, rng)
                detail = ""
            except Exception:  # noqa: BLE001  (a self-test reports whatever went wrong)
                ok, detail = False, "\n" + traceback.format_exc()
            failures += not ok
            print(f"{label} {device.name}: {name} {'ok' if ok else 'FAILED'} "
                  f"({(time.perf_counter() - start) * 1e3:.0f} ms){detail}", file=out)
    print(f"{failures} failed" if failures else "all passed", file=out)
    return failures


def _isolated(selection, out):
    """run() with each device in a child process (``--one LABEL``); returns the number of failures."""
    print(f"kjarni {kjarni.__version__} from {kjarni.__file__}", file=out)
    devices = _devices(list(selection))
    if not devices:
        print("no device found (neither a CUDA driver nor an OpenCL platform)", file=out)
        return 1
    failures = 0
    for label, device in devices:
        child = subprocess.run([sys.executable, "-m", "kjarni.test", "--one", label], capture_output=True,
                               text=True, env=dict(os.environ), check=False)
        lines = [line for line in child.stdout.splitlines() if line.startswith(label + " ")]
        for line in lines:
            print(line, file=out)
        failures += sum(" FAILED" in line for line in lines)
        if child.returncode < 0 or (child.returncode != 0 and not lines):
            try:
                how = f"signal {signal.Signals(-child.returncode).name}" if child.returncode < 0 else \
                    f"exit status {child.returncode}"
            except ValueError:
                how = f"signal {-child.returncode}"
            said = "\n".join(child.stderr.strip().splitlines()[-5:])
            during = f"during the {CHECKS[len(lines)][0]} check" if len(lines) < len(CHECKS) else "at its end"
            print(f"{label} {device.name}: FAILED: the process checking it ended by {how} {during}"
                  f"{': ' + said if said else ''}", file=out)
            failures += 1
    print(f"{failures} failed" if failures else "all passed", file=out)
    return failures


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["--one"]:  # a child of _isolated: one device, its lines only
        return 1 if run(args[1:2], out=_Flushed()) else 0
    if args[:1] == ["--in-process"]:
        return 1 if run(args[1:]) else 0
    return 1 if _isolated(args, sys.stdout) else 0


class _Flushed:
    """stdout, flushed at every write (a crash must not lose the lines before it)."""
    def write(self, text):
        sys.stdout.write(text)
        sys.stdout.flush()

    def flush(self):
        sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
