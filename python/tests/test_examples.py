"""grunnur's tutorial as runnable scripts (examples/python/): each must run and print True last."""

import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[2] / "examples" / "python").glob("tutorial_*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_tutorial_script(script):
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "True", result.stdout
