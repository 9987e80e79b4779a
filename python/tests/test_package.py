"""The installed package itself: its version is the library's, its headers and CMake package are
where get_include() and get_cmake_dir() say, the extension exports only its init function, and
`python -m kjarni.test` passes on these devices."""

import importlib.metadata
import os
import pathlib
import re
import shutil
import subprocess
import sys

import kjarni

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_version_is_the_librarys():
    declared = re.search(r"project\(kjarni VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert kjarni.__version__ == declared == importlib.metadata.version("kjarni")


def test_headers_and_cmake_package():
    assert (pathlib.Path(kjarni.get_include()) / "kjarni" / "kjarni.hpp").is_file()
    cmake_dir = pathlib.Path(kjarni.get_cmake_dir())
    assert cmake_dir.parts[-3:] == ("lib", "cmake", "kjarni")
    # A wheel linked against a prebuilt library (CI's) carries the headers only.
    if cmake_dir.exists():
        assert (cmake_dir / "kjarniConfig.cmake").is_file() and (cmake_dir.parents[1] / "libkjarni.a").is_file()


def test_extension_exports_only_its_init_function():
    """Any other exported symbol (the standard library's template instantiations, say) could take the
    place of the system libstdc++'s own when the module is what loaded it (python/_kjarni.map)."""
    nm = shutil.which("nm")
    if nm is None:
        import pytest
        pytest.skip("binutils' nm is not installed")
    listing = subprocess.run([nm, "-D", "--defined-only", kjarni._kjarni.__file__], capture_output=True, text=True,
                             check=True).stdout
    exported = {line.split()[-1] for line in listing.splitlines() if line.strip()}
    assert exported == {"PyInit__kjarni"}, sorted(exported)[:20]


def test_self_test_passes_here():
    result = subprocess.run([sys.executable, "-m", "kjarni.test"], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("all passed") and " ok (" in result.stdout


def test_self_test_reports_a_device_whose_process_aborts(tmp_path):
    """Each device is checked in a process of its own: one whose driver aborts the process (here the
    reduction check's numpy.allclose aborts, as glibc's `free(): invalid pointer` does) fails with
    the signal named, and the other devices are still checked."""
    (tmp_path / "sitecustomize.py").write_text("import os, numpy\nnumpy.allclose = lambda *a, **k: os.abort()\n")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    result = subprocess.run([sys.executable, "-m", "kjarni.test"], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, PYTHONPATH=path))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    crashed = [line for line in lines if "ended by signal SIGABRT during the reduction check" in line]
    devices = {line.split(" ")[0] for line in lines if " kernel ok (" in line}
    assert devices and len(crashed) == len(devices), result.stdout
    assert lines[-1] == f"{len(devices)} failed"
