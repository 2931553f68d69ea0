"""pytest configuration for the Python suite.

Makes `import swage` work from a plain `pytest test/python` run (the
Makefile sets PYTHONPATH and SWAGE_LIB itself), and reports the random
seed of every failed test so that it can be rerun with SWAGE_TEST_SEED.
"""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if not any(os.path.abspath(p) == os.path.join(REPO, "python") for p in sys.path if p):
    sys.path.insert(0, os.path.join(REPO, "python"))

from swage_testing import SeededRng, new_seed  # noqa: E402


@pytest.fixture
def rng(request):
    """A fresh NumPy Generator per test (seed from the OS, or SWAGE_TEST_SEED)."""
    generator = SeededRng(new_seed())
    request.node.swage_seed = generator.seed
    return generator


@pytest.fixture(scope="session")
def build_dir():
    """The directory of the libswage.so under test (where swage and swage-opt live)."""
    import swage
    return os.path.dirname(os.path.abspath(swage.library_path))


@pytest.fixture(scope="session")
def repo_root():
    return REPO


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    seed = getattr(item, "swage_seed", None)
    if report.failed and seed is not None:
        report.sections.append(
            ("swage random seed", "seed %d; rerun with SWAGE_TEST_SEED=%d" % (seed, seed)))
