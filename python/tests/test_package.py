"""The installed package itself: its version is the library's, its headers and CMake package are
where get_include() and get_cmake_dir() say, and `python -m kjarni.test` passes on these devices."""

import importlib.metadata
import os
import pathlib
import re
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


def test_self_test_passes_here():
    result = subprocess.run([sys.executable, "-m", "kjarni.test"], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("all passed") and " ok (" in result.stdout
