"""The package as a user meets it: one version everywhere, the metadata,
the `swage` and `swage-opt` commands behind the console scripts,
`python -m swage --help` / `--version`, and --help texts in whole sentences
(the demo's and every example's). The wheel itself is built, installed and
run by .ci/run."""

import glob
import os
import re
import subprocess
import sys

import pytest

import swage as sw
from swage import _cli, _native


def _run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)


def _pyproject(repo_root):
    with open(os.path.join(repo_root, "pyproject.toml")) as f:
        return f.read()


def test_one_version_everywhere(repo_root):
    """The package, the C library, swage.h and the distribution agree."""
    assert re.fullmatch(r"\d+\.\d+\.\d+", sw.__version__)
    assert _native.version == sw.__version__
    with open(os.path.join(repo_root, "include", "swage.h")) as f:
        header = f.read()
    major = re.search(r"#define SWAGE_VERSION_MAJOR (\d+)", header).group(1)
    minor = re.search(r"#define SWAGE_VERSION_MINOR (\d+)", header).group(1)
    assert sw.__version__.startswith("%s.%s." % (major, minor))
    assert 'version = { attr = "swage._version.__version__" }' in _pyproject(repo_root)


def test_metadata_license_and_scripts(repo_root):
    text = _pyproject(repo_root)
    assert 'name = "swage-ragged"' in text
    assert 'license = "MIT"' in text
    assert 'swage = "swage._cli:swage"' in text
    assert 'swage-opt = "swage._cli:swage_opt"' in text
    for extra in ("numpy", "torch"):
        assert re.search(r"^%s = \[" % extra, text, re.M), extra
    with open(os.path.join(repo_root, "LICENSE")) as f:
        assert f.readline().strip() == "MIT License"


@pytest.mark.parametrize("name, entry", [("swage", "swage"), ("swage-opt", "swage_opt")])
def test_console_scripts_run_the_c_programs(name, entry):
    path = _cli.program_path(name)
    assert path is not None and os.access(path, os.X_OK), name
    code = "import sys; from swage import _cli; sys.argv[0] = %r; _cli.%s()" % (name, entry)
    result = _run([sys.executable, "-c", code, "--version"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "%s %s\n" % (name, sw.__version__)
    result = _run([sys.executable, "-c", code, "--help"])
    assert result.returncode == 0 and "usage: %s" % name in result.stdout, result.stdout


def test_console_script_exit_status_is_the_programs():
    code = "import sys; from swage import _cli; _cli.swage()"
    result = _run([sys.executable, "-c", code, "compile"])
    assert result.returncode == 2  # bad usage: no file
    assert "usage: swage compile" in result.stderr


def test_python_m_swage_version():
    result = _run([sys.executable, "-m", "swage", "--version"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("swage %s (C library %s at " % (sw.__version__,
                                                                   sw.__version__))


def _help_sentences(text):
    """The help of each option (the text after its flags), joined per option."""
    lines = text.split("options:", 1)[1].split("\n")
    helps, current = [], None
    for line in lines:
        if re.match(r"^  -", line):
            if current is not None:
                helps.append(current.strip())
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            current = parts[1] if len(parts) > 1 else ""
        elif line.startswith("    ") and current is not None:
            current += " " + line.strip()
        else:
            if current is not None:
                helps.append(current.strip())
            current = None
    if current is not None:
        helps.append(current.strip())
    return helps


def _check_sentences(help_text):
    description = help_text.split("\n\n", 2)[1]
    assert description.strip().endswith("."), description
    helps = _help_sentences(help_text)
    assert helps
    for sentence in helps:
        assert sentence[:1].isupper() and sentence.endswith("."), sentence


def test_python_m_swage_help_is_whole_sentences():
    result = _run([sys.executable, "-m", "swage", "--help"])
    assert result.returncode == 0, result.stderr
    _check_sentences(result.stdout)
    assert "swage --help" in result.stdout and "docs/api.md" in result.stdout


@pytest.mark.parametrize("example", sorted(
    os.path.basename(path) for path in glob.glob(os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "examples", "[a-z]*.py")) if not path.endswith("segment_examples.py")))
def test_example_help_is_whole_sentences(repo_root, example):
    result = _run([sys.executable, os.path.join(repo_root, "examples", example), "--help"])
    assert result.returncode == 0, result.stderr
    _check_sentences(result.stdout)
