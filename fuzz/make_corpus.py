#!/usr/bin/env python3
"""Regenerates the fuzzers' seed corpus (fuzz/corpus/) from the tests.

    python3 fuzz/make_corpus.py        (SWAGE_LIB and PYTHONPATH as for pytest)

kernel.seeds  the kernel specialisations the Python suite compiles (up to
              three per kernel source) and those the lit tests compile with
              `swage compile`, each as fuzz_kernel reads it: a header line
              "#! SIGNATURE | CONSTEXPRS", then the kernel's source. Sources
              that fail to compile are kept too: they seed the error paths.
ir.seeds      every chunk of the lit tests' .mlir files, and the IR stages of
              a sample of the kernels above (source, semantic, SIMT and, for
              segment programs, the plan of one schedule): fuzz_ir's input.

Each file holds its seeds one after the other, each ended by a line
"=====seed=====" (the fuzzers read such a file as a list of seeds). Run this
after tests are added: `make fuzz` uses what is committed. The seeds are
sorted, so running it again changes nothing when the tests did not.
"""

import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CORPUS = os.path.join(HERE, "corpus")
SEPARATOR = "=====seed=====\n"
MAX_IR_BYTES = 6000      # larger stage texts are left out: mutations of them are slow
IR_KERNEL_SAMPLE = 120   # kernels whose stages become IR seeds
PER_SOURCE = 3           # specialisations kept per kernel source


def write_seeds(name, seeds):
    """Writes the distinct seeds, sorted, to corpus/NAME."""
    with open(os.path.join(CORPUS, name), "w") as f:
        for seed in sorted(set(seeds)):
            f.write(seed if seed.endswith("\n") else seed + "\n")
            f.write(SEPARATOR)


def kernel_seed(source, signature, constexprs):
    return "#! %s | %s\n%s" % (signature or "", constexprs or "", source)


def record_pytest():
    """(source, signature, constexprs) of every compile the Python suite makes."""
    import pytest
    from swage import _native

    seen = {}
    original = _native.compile_kernel

    def recording(source, file_name, first_line, kernel_name, signature, constexprs,
                  extract=False):
        if not extract:
            seen.setdefault((source, signature or "", constexprs or ""), None)
        return original(source, file_name, first_line, kernel_name, signature, constexprs,
                        extract)

    _native.compile_kernel = recording
    try:
        pytest.main(["-q", "-x", "-p", "no:cacheprovider", "-k", "not ptxas and not gpu",
                     os.path.join(REPO, "test", "python")])
    finally:
        _native.compile_kernel = original
    return list(seen)


def lit_kernels():
    """(source of the def, signature, constexprs) from the RUN lines of the
    lit tests' .py files."""
    out = []
    for root, _, files in os.walk(os.path.join(REPO, "test", "lit")):
        for name in sorted(files):
            if not name.endswith(".py") or name in ("lit.cfg.py", "not.py"):
                continue
            text = open(os.path.join(root, name)).read()
            defs = {m.group(1): m.start() for m in re.finditer(r"^def (\w+)\(", text, re.M)}
            for line in text.splitlines():
                if "%swage compile" not in line:
                    continue
                argv = shlex.split(line.split("%swage compile", 1)[1].split("|")[0])
                opts = {"--kernel": None, "--signature": "", "--constexprs": []}
                for i, arg in enumerate(argv):
                    key = arg.split("=", 1)[0]
                    value = arg.split("=", 1)[1] if "=" in arg else (
                        argv[i + 1] if i + 1 < len(argv) else "")
                    if key == "--kernel":
                        opts["--kernel"] = value
                    elif key == "--signature":
                        opts["--signature"] = value
                    elif key in ("--constexpr", "--constexprs"):
                        opts["--constexprs"].append(value)
                kernel = opts["--kernel"]
                if kernel not in defs:
                    continue
                start = defs[kernel]
                end = min([p for p in defs.values() if p > start] + [len(text)])
                body = text[start:end]
                body = "\n".join(l for l in body.splitlines() if not l.startswith("#")) + "\n"
                out.append((body, opts["--signature"], ",".join(opts["--constexprs"])))
    return out


def lit_ir_chunks():
    out = []
    for root, _, files in os.walk(os.path.join(REPO, "test", "lit")):
        for name in sorted(files):
            if name.endswith(".mlir"):
                text = open(os.path.join(root, name)).read()
                for chunk in re.split(r"^\s*// -----\s*$", text, flags=re.M):
                    chunk = "\n".join(l for l in chunk.splitlines()
                                      if not l.lstrip().startswith("//")).strip()
                    if chunk:
                        out.append(chunk + "\n")
    return out


def stage_texts(specs):
    """IR of the stages of a sample of the kernels (those that compile)."""
    from swage import _native

    texts = []
    step = max(1, len(specs) // IR_KERNEL_SAMPLE)
    for source, signature, constexprs in specs[::step]:
        try:
            kernel = _native.compile_kernel(source, "k.py", 1, None, signature, constexprs)
        except Exception:
            continue
        stages = [("source", "auto"), ("semantic", "auto"), ("simt", "auto")]
        if _native.segment_launch_facts(kernel) is not None:
            schedule = _native.SCHEDULES[1 + len(texts) % (len(_native.SCHEDULES) - 1)]
            stages.append(("plan", schedule))
        for stage, schedule in stages:
            try:
                texts.append(_native.emit_mlir(kernel, stage, False, schedule))
            except Exception:
                pass
    return [t for t in texts if len(t) <= MAX_IR_BYTES]


def main():
    specs, per_source = [], {}
    for spec in record_pytest() + lit_kernels():
        if per_source.get(spec[0], 0) < PER_SOURCE:
            per_source[spec[0]] = per_source.get(spec[0], 0) + 1
            specs.append(spec)
    os.makedirs(CORPUS, exist_ok=True)
    kernels = [kernel_seed(*spec) for spec in specs]
    ir = lit_ir_chunks() + stage_texts(specs)
    write_seeds("kernel.seeds", kernels)
    write_seeds("ir.seeds", ir)
    print("corpus: %d kernel seeds, %d IR seeds" % (len(set(kernels)), len(set(ir))))


if __name__ == "__main__":
    sys.exit(main())
