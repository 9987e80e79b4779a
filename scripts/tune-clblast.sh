#!/bin/bash
# Tunes CLBlast's kernels for one OpenCL device with CLBlast's own tuners (Debian clblast-utils)
# and writes the best parameters as data/clblast/<device>.json, which kjarni compiles in and hands
# to CLBlastOverrideParameters the first time a BLAS call runs on a device of that name
# (src/vendor/clblast_tuning.hpp). Rebuild kjarni afterwards, or point KJARNI_CLBLAST_PARAMETERS at
# the file to use it without rebuilding.
#
#   scripts/tune-clblast.sh [-p PLATFORM] [-d DEVICE] [-P "32 64"] [-k "xgemm copy"] [-f FRACTION] [-o DIR]
#
#   -p, -d  OpenCL platform (index, or a word of its name: "NVIDIA") and device index, as
#           clinfo -l lists them (default 0 0)
#   -P      precisions: 16 32 64 3232 6464 (default 32)
#   -k      tuners, from: xgemm xgemm_direct copy pad transpose padtranspose xgemv xger xdot xaxpy
#           (default "xgemm": the GEMM kernel that large products use)
#   -f      explore 1/FRACTION of each tuner's configurations (CLBlast's -fraction; default 300)
#   -o      output directory (default data/clblast of this checkout)
#
# Time: CLBlast's -fraction applies to all four searches of the xgemm tuner (a fixed set of 578
# configurations and a random 1/FRACTION of 120800, for GEMMK 0; 407 and 16566 for GEMMK 1, as
# counted on PoCL): -f 300 tries about 460 configurations, each a compile (~0.3 s on NVIDIA's
# OpenCL) and two 1024^3 runs: about 3 to 5 minutes per precision on an H100. -f 1 tries all
# 138000 (days). On a CPU (PoCL) each compile takes about a second.
set -euo pipefail

platform=0
device=0
precisions="32"
kernels="xgemm"
fraction=300
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/data/clblast"
while getopts "p:d:P:k:f:o:h" opt; do
  case $opt in
    p) platform=$OPTARG ;;
    d) device=$OPTARG ;;
    P) precisions=$OPTARG ;;
    k) kernels=$OPTARG ;;
    f) fraction=$OPTARG ;;
    o) out=$OPTARG ;;
    *) sed -n '2,25p' "$0"; exit 2 ;;
  esac
done

command -v clblast_tuner_xgemm >/dev/null || {
  echo "tune-clblast: clblast_tuner_xgemm not found (Debian package clblast-utils)" >&2; exit 1; }
if ! [[ $platform =~ ^[0-9]+$ ]]; then  # a name: its index in clinfo -l's list
  name=$platform
  platform=$(clinfo -l | sed -n "s/^Platform #\([0-9]*\): .*$name.*/\1/p" | head -1)
  [ -n "$platform" ] || { echo "tune-clblast: no OpenCL platform named like '$name' (clinfo -l)" >&2; exit 1; }
fi
command -v python3 >/dev/null || { echo "tune-clblast: python3 is needed to merge the results" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cd "$work"
for kernel in $kernels; do
  for precision in $precisions; do
    args=(-platform "$platform" -device "$device" -precision "$precision" -fraction "$fraction")
    # xgemm needs sizes that every tile size divides; 1024 is CLBlast's own default there.
    case $kernel in xgemm) args+=(-m 1024 -n 1024 -k 1024) ;; esac
    echo "tune-clblast: clblast_tuner_$kernel ${args[*]}"
    # A tuner stops at the first configuration the device cannot run only when all fail; its
    # per-configuration failures are part of the search, so its exit status is what counts.
    "clblast_tuner_$kernel" "${args[@]}" > "tuner_${kernel}_${precision}.log" 2>&1 || {
      echo "tune-clblast: clblast_tuner_$kernel failed; the end of its log:" >&2
      tail -20 "tuner_${kernel}_${precision}.log" >&2
      exit 1
    }
  done
done

python3 - "$out" <<'EOF'
# Merges the tuners' clblast_<family>_<precision>.json files into one file for the device.
import glob, json, re, sys, datetime

# Tuner family (file name prefix) -> the kernel name CLBlastOverrideParameters takes.
kernel_of = [("xgemm_direct", "XgemmDirect"), ("xgemm", "Xgemm"), ("copy", "Copy"), ("padtranspose", "Padtranspose"),
             ("pad", "Pad"), ("transpose", "Transpose"), ("xgemv_fast_rot", "XgemvFastRot"),
             ("xgemv_fast", "XgemvFast"), ("xgemv", "Xgemv"), ("xger", "Xger"), ("xdot", "Xdot"), ("xaxpy", "Xaxpy")]
best = {}   # (kernel, precision, parameter names) -> (time, parameters)
device = None
for path in sorted(glob.glob("clblast_*.json")):
    with open(path) as f:
        result = json.load(f)
    family = result["kernel_family"]
    kernel = next((name for prefix, name in kernel_of if family == prefix or family.startswith(prefix + "_")), None)
    if kernel is None or "best_parameters" not in result:
        print(f"tune-clblast: skipping {path} ({family})", file=sys.stderr)
        continue
    device = result["device"]
    precision = int(result["precision"])
    params = dict(item.split("=") for item in result["best_parameters"].split())
    params = {k: int(v) for k, v in params.items() if k != "PRECISION"}
    key = (kernel, precision, tuple(sorted(params)))
    time = float(result["best_time"])
    if key not in best or time < best[key][0]:
        best[key] = (time, params)
if device is None:
    sys.exit("tune-clblast: the tuners wrote no results")
# Families of one kernel that tune different parameters (xdot_1, xdot_2) are combined.
merged = {}
for (kernel, precision, _), (time, params) in sorted(best.items()):
    merged.setdefault((kernel, precision), {}).update(params)
doc = {
    "device": device,
    "tuned": datetime.date.today().isoformat(),
    "tool": "scripts/tune-clblast.sh (CLBlast tuners, clblast-utils)",
    "kernels": [{"kernel": k, "precision": p, "parameters": v} for (k, p), v in sorted(merged.items())],
}
name = re.sub(r"[^A-Za-z0-9]+", "-", device).strip("-").lower()
path = f"{sys.argv[1]}/{name}.json"
with open(path, "w") as f:
    json.dump(doc, f, indent=2, sort_keys=False)
    f.write("\n")
print(f"tune-clblast: wrote {path} for '{device}'")
EOF
