#!/bin/bash
# Installs, from Debian 12's packages, everything kjarni needs to build and to run on the CPU
# (PoCL). Vendor GPU drivers are not installed: kjarni finds them at run time where they exist.
# The CUDA backend is built when a CUDA >= 12 toolkit's headers are present (/usr/local/cuda or
# $CUDA_HOME); nothing of CUDA is needed to build or run otherwise. `--lint` adds the tools of
# CI's format and clang-tidy checks.
set -euo pipefail

packages=(
  ca-certificates g++ cmake make ccache git
  libfmt-dev libxxhash-dev libgmp-dev libcli11-dev nlohmann-json3-dev
  libssl-dev  # OpenSSL's headers: the TCP rendezvous' HMAC (libcrypto.so.3 itself is loaded at run time)
  libgtest-dev libgmock-dev libbenchmark-dev
  opencl-headers ocl-icd-opencl-dev ocl-icd-libopencl1 pocl-opencl-icd clinfo
  libclblast-dev libclblast1
  python3 python3-venv python3-dev
  ninja-build  # the Python package's build (pip install .): every core busy, where Make would run one
  # Optional: kjarni_mpi (MpiRendezvous) and the mpirun tests of the rendezvous (about 25 s to install).
  libopenmpi-dev openmpi-bin
  clang libclang-rt-14-dev  # the fuzz targets (libFuzzer)
  doxygen  # the API documentation and the guides (target kjarni_docs); no graphviz: HAVE_DOT=NO
)

# With --lint (CI's checks, not needed to build or test): scripts/check-format.sh and
# scripts/check-tidy.sh's tools.
[ "${1:-}" = --lint ] && packages+=(clang-format-15 clang-tidy)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (or install sudo): ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
