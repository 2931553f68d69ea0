"""Every specialisation the CPU suite compiled, assembled by ptxas.

Runs last (pytest collects this directory's files in name order): by then
the other test files have compiled hundreds of kernel specialisations (every
tile op and dtype, every segment example, int32/int64 offsets, ...). Each
one's PTX is emitted for sm_90 (the H200) and sm_80 (an older target) and
assembled with `ptxas`, so CI -- which has no GPU -- checks that every PTX
Swage emits is valid. The only compile error allowed is the documented one
for float64 transcendental functions.

ptxas is looked up on PATH, then in $CUDA_HOME/bin and /usr/local/cuda/bin.
When SWAGE_REQUIRE_PTXAS=1 (CI sets it) a missing ptxas is a failure.
"""

import gc
import os
import shutil
import subprocess
import tempfile

import pytest

import swage as sw
from swage import _jit, _native

TARGETS = (90, 80)


def _ptxas():
    found = shutil.which("ptxas")
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if not found and home and os.access(os.path.join(home, "bin", "ptxas"), os.X_OK):
            found = os.path.join(home, "bin", "ptxas")
    return found


def _specialisations():
    seen = {}
    for obj in gc.get_objects():
        if isinstance(obj, _jit.JITFunction):
            for key, kernel in list(obj._cache.items()):
                seen[(obj.__name__, obj.file, key)] = kernel
    return seen


def test_every_compiled_specialisation_assembles():
    ptxas = _ptxas()
    if ptxas is None:
        if os.environ.get("SWAGE_REQUIRE_PTXAS") == "1":
            pytest.fail("ptxas not found, and SWAGE_REQUIRE_PTXAS=1")
        pytest.skip("ptxas not found (set SWAGE_REQUIRE_PTXAS=1 to make this a failure)")
    kernels = _specialisations()
    assert len(kernels) >= 100, "expected the earlier tests to compile many kernels, got %d" % len(
        kernels)
    failures, assembled = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, ((name, _file, (signature, constexprs)), kernel) in enumerate(sorted(
                kernels.items(), key=lambda item: repr(item[0]))):
            for sm in TARGETS:
                try:
                    text = _native.emit_ptx(kernel, sm)
                except sw.CompileError as e:
                    failures.append("%s [%s | %s] sm_%d: %s" % (name, signature, constexprs, sm, e))
                    continue
                path = os.path.join(tmp, "k%d_sm%d.ptx" % (i, sm))
                with open(path, "w") as f:
                    f.write(text)
                result = subprocess.run([ptxas, "-arch=sm_%d" % sm, path, "-o", os.devnull],
                                        capture_output=True, text=True, timeout=120)
                if result.returncode != 0:
                    failures.append("%s [%s | %s] sm_%d: %s" % (name, signature, constexprs, sm,
                                                                result.stderr.strip()[:500]))
                else:
                    assembled += 1
    print("ptxas assembled %d PTX modules (%d specialisations x %d targets)"
          % (assembled, len(kernels), len(TARGETS)))
    assert not failures, "%d PTX modules failed:\n%s" % (len(failures), "\n".join(failures[:20]))
