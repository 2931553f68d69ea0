"""Every specialisation the CPU suite compiled, assembled by ptxas.

Runs last (pytest collects this directory's files in name order): by then
the other test files have compiled hundreds of kernel specialisations (every
tile op and dtype, every segment example, int32/int64 offsets, ...). Each
one's PTX is emitted for sm_90 (the H200) and sm_80 (an older target) and
assembled with `ptxas`, so CI -- which has no GPU -- checks that every PTX
Swage emits is valid. A segment program's PTX holds the task kernels of its
automatic schedule; for the first specialisation of each segment program,
every forced schedule's PTX is assembled too (docs/schedules.md). The only
compile error allowed is the documented one for float64 transcendental
functions. ptxas runs on every core.

The ptxas is $SWAGE_PTXAS when set (`make test` sets it: the machine's
ptxas, or the one it installed from NVIDIA's nvidia-cuda-nvcc wheel into
.venv/; "none" skips this test), else the first on PATH, else
$CUDA_HOME/bin's or /usr/local/cuda/bin's. When SWAGE_REQUIRE_PTXAS=1
(`make test` sets it) a missing ptxas is a failure.
"""

import concurrent.futures
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
    given = os.environ.get("SWAGE_PTXAS")
    if given == "none":  # make test PTXAS=none
        return None
    if given:
        return given if os.access(given, os.X_OK) else None
    found = shutil.which("ptxas")
    for home in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if not found and home and os.access(os.path.join(home, "bin", "ptxas"), os.X_OK):
            found = os.path.join(home, "bin", "ptxas")
    return found


def _specialisations():
    seen = {}
    for obj in gc.get_objects():
        # a JITFunction whose __init__ raised (test_triton_launch's
        # sw.jit(debug="yes")) may linger until the cyclic GC runs: no _cache
        if isinstance(obj, _jit.JITFunction) and hasattr(obj, "_cache"):
            for key, kernel in list(obj._cache.items()):
                seen[(obj.__name__, obj.file, key)] = kernel
    return seen


def test_every_compiled_specialisation_assembles():
    ptxas = _ptxas()
    if ptxas is None:
        if os.environ.get("SWAGE_REQUIRE_PTXAS") == "1":
            pytest.fail("ptxas not found (SWAGE_PTXAS=%r), and SWAGE_REQUIRE_PTXAS=1"
                        % os.environ.get("SWAGE_PTXAS"))
        pytest.skip("ptxas not found (set SWAGE_REQUIRE_PTXAS=1 to make this a failure)")
    kernels = _specialisations()
    assert len(kernels) >= 100, "expected the earlier tests to compile many kernels, got %d" % len(
        kernels)
    jobs = []
    programs = set()
    for i, ((name, file, (signature, constexprs, *num_warps)), kernel) in enumerate(sorted(
            kernels.items(), key=lambda item: repr(item[0]))):
        if num_warps:  # a launch with num_warps= (its own CTA size)
            constexprs = "%s | num_warps=%d" % (constexprs, num_warps[0])
        schedules = ["auto"]
        if _native.segment_launch_facts(kernel) is not None and (name, file) not in programs:
            programs.add((name, file))
            schedules = list(_native.SCHEDULES)
        for schedule in schedules:
            for sm in TARGETS:
                jobs.append((i, name, signature, constexprs, kernel, schedule, sm))
    failures, assembled = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        def assemble(job):
            i, name, signature, constexprs, kernel, schedule, sm = job
            what = "%s [%s | %s] %s sm_%d" % (name, signature, constexprs, schedule, sm)
            try:
                text = _native.emit_ptx(kernel, sm, schedule)
            except sw.CompileError as e:
                if "sl.device_print is not supported on the GPU" in str(e):
                    return None  # documented: CPU executors only
                if "of a tile of pointers that is not computed from offsets" in str(e):
                    return None  # documented (docs/simt.md): a loop-carried pointer tile broadcast
                return "%s: %s" % (what, e)
            path = os.path.join(tmp, "k%d_%s_sm%d.ptx" % (i, schedule, sm))
            with open(path, "w") as f:
                f.write(text)
            result = subprocess.run([ptxas, "-arch=sm_%d" % sm, path, "-o", os.devnull],
                                    capture_output=True, text=True, timeout=300)
            if result.returncode != 0:
                return "%s: %s" % (what, result.stderr.strip()[:500])
            return None
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for failure in pool.map(assemble, jobs):
                if failure:
                    failures.append(failure)
                else:
                    assembled += 1
    print("%s assembled %d PTX modules (%d specialisations, %d segment programs in every "
          "schedule, %d targets)" % (ptxas, assembled, len(kernels), len(programs), len(TARGETS)))
    assert not failures, "%d PTX modules failed:\n%s" % (len(failures), "\n".join(failures[:20]))
