#!/bin/bash
# The Python packages the test suite compares kjarni with, as wheels for the lent GPU machine, which
# has no package index: grunnur 0.6 (the peer of test_grunnur_api.py and test_peer_grunnur.py),
# Mako (grunnur's templates) and pyopencl (grunnur's OpenCL, on NVIDIA's driver there), with what
# they need that the machine's Python (/opt/torch/.venv, Python 3.12) lacks: pytools, platformdirs,
# siphash24. About 1.2 MB, into .gpu-deps/wheels (ignored by git; carried with .gpu-deps), pinned
# as scripts/python-test.sh pins them for CI. scripts/gpu-python.sh installs them there.
#   bash scripts/fetch-python-wheels.sh      (here, from the repository root; needs PyPI)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.gpu-deps/wheels
pins=(grunnur==0.6.0 Mako==1.3.10 pyopencl==2026.1.4 pytools==2026.1.1 platformdirs==4.14.8 siphash24==1.9)
mkdir -p "$dir"
# One version of each (two stop the installation there); other packages' wheels stay.
for pin in "${pins[@]}"; do
  name=${pin%%==*}
  find "$dir" -maxdepth 1 -iname "${name}-*.whl" -delete
done
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any -d "$dir" "${pins[@]}"
ls -s "$dir"
