"""The test data that comes from the peers (what Mako renders for the corpus, what grunnur renders
for its tutorial and its c_constant of arrays) is committed, so that the C++ tests run without
Python. This script re-makes it with the peers themselves and fails when it differs from what is
committed; `--update` rewrites it."""

import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

here = Path(__file__).resolve().parent
data = {
    "mako_corpus.py": here.parent / "corpus" / "expected",
    "mako_line_ends.py": here.parent / "line_ends",
    "mako_embedded.py": here.parent / "embedded",
    "grunnur_cases.py": here.parent / "grunnur",
    "grunnur_constants.py": here.parent.parent / "runtime" / "data" / "grunnur_c_constant",
}

update = "--update" in sys.argv
failed = []
with tempfile.TemporaryDirectory() as tmp:
    for script, committed in data.items():
        out = committed if update else Path(tmp) / script
        subprocess.run([sys.executable, str(here / script), str(out)], check=True)
        if update:
            continue
        made = {p.name for p in out.iterdir()}
        have = {p.name for p in committed.iterdir()}
        for name in sorted(made | have):
            if name not in have or name not in made or not filecmp.cmp(out / name, committed / name, shallow=False):
                failed.append(f"{committed.name}/{name}")
if failed:
    print("differ from what the peers render now (re-make with check.py --update):", *failed, sep="\n  ")
    sys.exit(1)
print("peer data matches:", ", ".join(str(p.relative_to(here.parent.parent)) for p in data.values()))
