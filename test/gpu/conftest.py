"""pytest configuration for the GPU suite (test/gpu): run on a machine with a
CUDA GPU and PyTorch, by tools/gpu_run.sh; `make test` does not collect it.

Makes `import swage` and the CPU suite's helpers (test/python) importable,
gives each test a fresh seeded NumPy generator (`rng`, reported on failure,
SWAGE_TEST_SEED to rerun), and checks that a GPU is there: without one the
whole suite is skipped with the reason, or fails when SWAGE_EXPECT_GPU=1
(as tools/gpu_run.sh sets), so a broken GPU machine never passes silently.
"""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for path in (os.path.join(REPO, "python"), os.path.join(REPO, "test", "python")):
    if path not in sys.path:
        sys.path.insert(0, path)

from swage_testing import SeededRng, new_seed  # noqa: E402


def _gpu_problem():
    """None when PyTorch sees a CUDA device and Swage can launch; else why not."""
    try:
        import torch
    except ImportError as e:
        return "PyTorch is not installed (%s)" % e
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    import swage._native as native
    return native.cuda_unavailable_reason()


_PROBLEM = _gpu_problem()


def pytest_report_header(config):
    if _PROBLEM is not None:
        return "swage GPU suite: NO GPU: %s" % _PROBLEM
    import torch
    import swage
    return ("swage GPU suite: %s (sm_%d%d), torch %s, %d device(s), libswage %s"
            % (torch.cuda.get_device_name(0), *torch.cuda.get_device_capability(0),
               torch.__version__, torch.cuda.device_count(), swage.library_path))


def pytest_configure(config):
    # (runs when this directory is part of the session, i.e. pytest test/gpu)
    expect = os.environ.get("SWAGE_EXPECT_GPU") or os.environ.get("SWAGE_REQUIRE_GPU") or ""
    if _PROBLEM is not None and expect not in ("", "0"):
        raise pytest.UsageError("SWAGE_EXPECT_GPU is set but the GPU suite cannot run: "
                                + _PROBLEM)


def pytest_collection_modifyitems(config, items):
    if _PROBLEM is None:
        return
    skip = pytest.mark.skip(reason="GPU suite needs a CUDA GPU: " + _PROBLEM)
    for item in items:  # this hook sees every item of the session: mark only ours
        if str(item.fspath).startswith(HERE + os.sep):
            item.add_marker(skip)


@pytest.fixture
def rng(request):
    """A fresh NumPy Generator per test (seed from the OS, or SWAGE_TEST_SEED)."""
    generator = SeededRng(new_seed())
    request.node.swage_seed = generator.seed
    return generator


@pytest.fixture
def torch_gen(rng):
    """A torch.Generator on cuda:0 seeded from the test's seed."""
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(rng.seed % (1 << 63)))
    return gen


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    seed = getattr(item, "swage_seed", None)
    if report.failed and seed is not None:
        report.sections.append(
            ("swage random seed", "seed %d; rerun with SWAGE_TEST_SEED=%d" % (seed, seed)))
