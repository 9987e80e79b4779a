"""What the peers' scripts share: CUDA-event timers over a batch of calls (PyTorch's and CuPy's) and
the interleaved rounds whose medians they print. Imported from the scripts' own folder."""
import statistics


def torch_timer(batch):
    """Seconds per call of fn, over `batch` calls between two CUDA events, after one warm-up call."""
    import torch

    def timer(fn):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        fn()
        torch.cuda.synchronize()
        start.record()
        for _ in range(batch):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / batch
    return timer


def cupy_timer(batch):
    """The same through CuPy's events."""
    import cupy as cp

    def timer(fn):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        fn()
        cp.cuda.runtime.deviceSynchronize()
        start.record()
        for _ in range(batch):
            fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) / 1e3 / batch
    return timer


def each_peer(makers):
    """(peer, cases, timer) for every (peer, make) whose make() works; says which are unavailable."""
    for peer, make in makers:
        try:
            cases, timer = make()
        except Exception as error:  # a peer missing on this machine
            print(f"{peer}: unavailable ({error})")
            continue
        yield peer, cases, timer


def interleaved_medians(functions, timer, repetitions):
    """The median seconds per call of each function (name -> fn), every one once per round."""
    samples = {name: [] for name in functions}
    for _ in range(repetitions):
        for name, fn in functions.items():
            samples[name].append(timer(fn))
    return {name: statistics.median(values) for name, values in samples.items()}
