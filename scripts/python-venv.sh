#!/bin/bash
# Makes (or reuses) a Python virtual environment with the peers the template tests compare kjarni
# with: Mako and grunnur from PyPI, pinned. Usage: scripts/python-venv.sh DIR (default build/python-venv).
set -euo pipefail
dir=${1:-build/python-venv}
pins=(Mako==1.3.10 grunnur==0.6.0)

if [ -x "$dir/bin/python" ] && "$dir/bin/python" - "${pins[@]}" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
try:
    ok = all(version(p.split("==")[0]) == p.split("==")[1] for p in sys.argv[1:])
except PackageNotFoundError:
    ok = False
sys.exit(0 if ok else 1)
PY
then
  exit 0
fi
python3 -m venv "$dir"
"$dir/bin/pip" install --quiet "${pins[@]}"
