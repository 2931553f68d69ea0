"""The documentation runs as written.

Every ```python and ```sh block of README.md, DESIGN.md, CHANGELOG.md,
docs/*.md and examples/README.md is a program that this test runs on the
CPU, unless an HTML comment on the line before its opening fence says
otherwise:

    <!-- doc-test: gpu -->       needs a CUDA GPU: runs only where PyTorch
                                 sees one and Swage can launch there
    <!-- doc-test: skip, WHY --> not run here (WHY says why: it installs
                                 something, or it is the test suite itself)
    <!-- doc-test: continue -->  a python block that goes on from the
                                 previous python block of the same file:
                                 both run as one program

Several words combine: `<!-- doc-test: gpu, continue -->`.

Blocks of any other language (text, mlir, output) are not programs.
Python blocks run with this interpreter in an empty directory; sh blocks
run with bash (-e, -u, pipefail) from a directory that links the
repository's examples/, docs/ and test/, with python3, swage and swage-opt
on PATH (this interpreter and the programs of the build under test).

The test also checks that the docs index links every page of docs/, that
relative links point at files that exist, and that no file of the
repository refers to documents outside it.
"""

import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCUMENTS = (["README.md", "DESIGN.md", "CHANGELOG.md", os.path.join("examples", "README.md")]
             + sorted(os.path.join("docs", name) for name in os.listdir(os.path.join(REPO, "docs"))
                      if name.endswith(".md")))
RUNNABLE = {"python": "python", "py": "python", "sh": "sh", "bash": "sh", "shell": "sh"}
MARKER = re.compile(r"<!--\s*doc-test:(.*?)-->")
KEYWORDS = ("gpu", "skip", "continue")
FENCE = re.compile(r"^(\s*)```\s*([\w+-]*)")


class Block:
    def __init__(self, document, line, language, text, markers, reason):
        self.document, self.line, self.language = document, line, language
        self.text, self.markers, self.reason = text, markers, reason

    @property
    def id(self):
        return "%s:%d" % (self.document, self.line)


def _blocks(document):
    """The fenced blocks of a Markdown file that are programs, in order."""
    path = os.path.join(REPO, document)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = f.read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, language = match.group(1), match.group(2).lower()
        start = i
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1  # the closing fence
        if language not in RUNNABLE:
            continue
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        marker = MARKER.search(lines[previous]) if previous >= 0 else None
        markers, reason = set(), []
        for part in (marker.group(1).split(",") if marker else []):
            word = part.strip().split(" ")[0]
            if word in KEYWORDS:
                markers.add(word)
            elif part.strip():
                reason.append(part.strip())
        assert not marker or markers, "%s:%d: a doc-test comment without %s" % (
            document, start + 1, " / ".join(KEYWORDS))
        blocks.append(Block(document, start + 1, RUNNABLE[language], "\n".join(body) + "\n",
                            markers, ", ".join(reason)))
    return blocks


def _programs():
    """(block, source) for every program: continued python blocks joined."""
    programs = []
    for document in DOCUMENTS:
        last_python = None
        for block in _blocks(document):
            if "continue" in block.markers:
                assert last_python is not None and block.language == "python", (
                    "%s: 'doc-test: continue' needs a python block before it" % block.id)
                base, source = last_python
                source = source + "\n" + block.text
                last_python = (base, source)
                programs.append((block, source, base))
                continue
            if block.language == "python":
                last_python = (block, block.text)
            programs.append((block, block.text, block))
    return programs


PROGRAMS = _programs()


def _gpu_reason():
    """None when a GPU block can run here, else why not (as the examples
    decide it)."""
    examples = os.path.join(REPO, "examples")
    if examples not in sys.path:
        sys.path.insert(0, examples)
    import _example
    return _example.gpu_problem()


def _environment(tmp_path, build_dir):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3", "python"):  # a script, not a link: a venv's python must keep its path
        wrapper = bin_dir / name
        wrapper.write_text('#!/bin/sh\nexec "%s" "$@"\n' % sys.executable)
        wrapper.chmod(0o755)
    for name in ("swage", "swage-opt"):
        os.symlink(os.path.join(build_dir, name), str(bin_dir / name))
    env = dict(os.environ)
    env["PATH"] = str(bin_dir) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    env["SWAGE_LIB"] = os.path.join(build_dir, "libswage.so")
    env["SWAGE_EXAMPLE_DEVICE"] = "cpu"
    return env


@pytest.mark.parametrize("block, source, base", PROGRAMS, ids=[p[0].id for p in PROGRAMS])
def test_documented_code_runs(block, source, base, tmp_path, build_dir):
    markers = block.markers | base.markers
    if "skip" in markers:
        assert block.reason or base.reason, "%s: say why it is skipped" % block.id
        pytest.skip(block.reason or base.reason)
    if "gpu" in markers:
        reason = _gpu_reason()
        if reason is not None:
            pytest.skip("needs a GPU: %s" % reason)
    env = _environment(tmp_path, build_dir)
    work = tmp_path / "work"
    work.mkdir()
    if block.language == "python":
        script = work / ("doc_%s_%d.py" % (re.sub(r"\W", "_", block.document), block.line))
        script.write_text(source)
        command = [sys.executable, str(script)]
    else:
        for name in ("examples", "docs", "test"):
            os.symlink(os.path.join(REPO, name), str(work / name))
        command = ["bash", "-euo", "pipefail", "-c", source]
    result = subprocess.run(command, cwd=str(work), env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, "%s (%s) failed with status %d:\n%s\n%s" % (
        block.id, block.language, result.returncode, result.stdout[-4000:], result.stderr[-4000:])


def test_every_document_has_programs_or_none_claimed():
    """At least the README's examples run: the parser finds them."""
    readme = [p for p in PROGRAMS if p[0].document == "README.md"]
    assert len([p for p in readme if not p[0].markers]) >= 3, [p[0].id for p in readme]


def test_docs_index_links_every_page():
    with open(os.path.join(REPO, "docs", "README.md")) as f:
        index = f.read()
    for name in sorted(os.listdir(os.path.join(REPO, "docs"))):
        if name.endswith(".md") and name != "README.md":
            assert "(%s)" % name in index, "docs/README.md does not link %s" % name


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("document", DOCUMENTS)
def test_relative_links_resolve(document):
    path = os.path.join(REPO, document)
    if not os.path.exists(path):
        pytest.skip("no %s" % document)
    with open(path) as f:
        text = f.read()
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        target = target.split("#")[0]
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
        assert os.path.exists(resolved), "%s links %s, which does not exist" % (document, target)


def _repository_files():
    try:
        listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                                capture_output=True, text=True, timeout=60, check=True)
        return [name for name in listed.stdout.split("\n") if name]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for root, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
            names.extend(os.path.relpath(os.path.join(root, f), REPO) for f in files)
        return names


# Spelled in pieces, so that this file does not match itself.
OUTSIDE_DOCUMENTS = re.compile("|".join([r"swage" + r"\.md", r"product" + r" brief",
                                         r"\.\./" + r"shared"]), re.IGNORECASE)


def test_no_file_refers_to_documents_outside_the_repository():
    offenders = []
    for name in _repository_files():
        path = os.path.join(REPO, name)
        if not os.path.isfile(path) or os.path.getsize(path) > 4 << 20:
            continue
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        for number, line in enumerate(text.split("\n"), 1):
            if OUTSIDE_DOCUMENTS.search(line):
                offenders.append("%s:%d: %s" % (name, number, line.strip()[:120]))
    assert not offenders, "references to documents outside the repository:\n" + "\n".join(
        offenders)
