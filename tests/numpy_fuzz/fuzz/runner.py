"""Driving the C++ runner (runner/main.cpp): a batch of programs written to a directory, the runner
run over it, its results read back. A runner that crashes or hangs is restarted past the program it
was running, which is reported as a crash or a hang."""

import json
import os
import subprocess
import time

import numpy as np

from . import dtypes


class Runner:
    def __init__(self, binary, device, workdir, timeout=150, gpu_forms=False):
        self.binary = binary
        self.device = device
        self.gpu_forms = gpu_forms
        self.workdir = workdir
        self.timeout = timeout
        self.batches = 0

    def run(self, programs, datas):
        """{program id: result} for the programs (result as runner/main.cpp writes it, values
        read into numpy arrays; a crash or hang as {"crash": message})."""
        self.batches += 1
        d = os.path.join(self.workdir, f"batch{self.batches % 2}")
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        blob = bytearray()
        out = []
        for p, data in zip(programs, datas):
            q = dict(p, inputs=[])
            for inp in p["inputs"]:
                a = np.asarray(data[inp["name"]], order="C")  # (0-d stays 0-d)
                q["inputs"].append(dict(inp, offset=len(blob)))
                blob += a.tobytes()
            out.append(q)
        with open(os.path.join(d, "programs.json"), "w") as f:
            json.dump({"programs": out}, f)
        with open(os.path.join(d, "inputs.bin"), "wb") as f:
            f.write(bytes(blob))
        results = {}
        start = 0
        while start < len(programs):
            status, log = self._invoke(d, start)
            lines = self._read_lines(d)
            started = None
            for line in lines:
                if "started" in line:
                    started = line["started"]
                else:
                    results[line["id"]] = self._load(d, line)
                    started = None
            if status == 0:
                break
            if started is None:
                raise RuntimeError(f"kjarni_numpy_runner failed outside a program (status {status}):\n{log}")
            kind = "hang" if status == "timeout" else "crash"
            results[started] = {"crash": f"{kind} (status {status}): {log[-2000:]}"}
            start = next(k for k, p in enumerate(programs) if p["id"] == started) + 1
            # The lines so far are read; the restarted runner appends after them.
        return results

    def _invoke(self, d, start):
        cmd = [self.binary, "--start", str(start), d]
        if self.device:
            cmd[1:1] = ["--device", self.device]
        if self.gpu_forms:
            cmd[1:1] = ["--gpu-forms"]
        # A program that runs longer than `timeout` seconds (no line added to results.jsonl) is a hang:
        # the runner is killed and restarted past it.
        log_path = os.path.join(d, f"runner-{start}.log")
        results = os.path.join(d, "results.jsonl")
        with open(log_path, "w") as log:
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            last, size = time.monotonic(), -1
            while p.poll() is None:
                time.sleep(0.05)
                now_size = os.path.getsize(results) if os.path.exists(results) else 0
                if now_size != size:
                    last, size = time.monotonic(), now_size
                elif time.monotonic() - last > self.timeout:
                    p.kill()
                    p.wait()
                    return "timeout", open(log_path).read()
        return p.returncode, open(log_path).read()

    @staticmethod
    def _read_lines(d):
        path = os.path.join(d, "results.jsonl")
        if not os.path.exists(path):
            return []
        lines = []
        with open(path) as f:
            for text in f:
                try:
                    lines.append(json.loads(text))
                except json.JSONDecodeError:
                    pass  # a line cut short by a crash
        return lines

    @staticmethod
    def _array(d, ref):
        with open(os.path.join(d, ref["blob"]), "rb") as f:
            f.seek(ref["offset"])
            raw = f.read(ref["nbytes"])
        return np.frombuffer(raw, dtype=ref["dtype"]).reshape(ref["shape"]).copy()

    def _load(self, d, line):
        for s in line["snapshots"]:
            s["value"] = self._array(d, s["value"])
        line["final"] = {k: self._array(d, v) for k, v in line["final"].items()}
        return line
