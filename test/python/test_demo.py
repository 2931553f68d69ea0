"""The README's demo command (`make demo` = `python3 -m swage`) runs the
segmented softmax and the vector add and checks them against references."""

import os
import subprocess
import sys


def test_demo_runs_and_checks_its_results():
    result = subprocess.run([sys.executable, "-m", "swage"], capture_output=True, text=True,
                            timeout=120, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "segmented softmax on" in result.stdout
    assert "sw.stages = 3" in result.stdout
    assert result.stdout.rstrip().endswith("OK")
