"""bench/tutorials.py (the GPU benchmark of the tutorial kernels) on a
machine without a GPU or PyTorch: it must import, print its --help, and run
its --dry-run (every Swage launch it makes, on the CPU's SIMT executor at
tiny shapes, checked against NumPy; the Triton form of the kernels parsed;
the JSON record and the table written), so that the next GPU run does not
fail on a typo."""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "tutorials.py")


def run(*args):
    return subprocess.run([sys.executable, BENCH] + list(args), capture_output=True, text=True,
                          timeout=120)


def test_help():
    child = run("--help")
    assert child.returncode == 0, child.stderr
    assert "--dry-run" in child.stdout and "--json" in child.stdout


def test_dry_run(tmp_path):
    record, table = tmp_path / "tutorials.json", tmp_path / "tutorials.txt"
    child = run("--dry-run", "--json", str(record), "--table", str(table))
    assert child.returncode == 0, child.stdout + child.stderr
    data = json.loads(record.read_text())
    assert data["dry_run"] and data["errors"] == []
    for section in ("softmax", "layer_norm"):
        assert data[section] and all(case["swage"]["gbps"] > 0 for case in data[section])
    text = table.read_text()
    assert "softmax" in text and "layer norm fwd" in text and "% of Triton" in text
    assert text.strip() in child.stdout


def test_unknown_section():
    child = run("--dry-run", "--sections", "matmul")
    assert child.returncode == 2 and "no section matmul" in child.stderr
