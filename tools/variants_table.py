#!/usr/bin/env python3
"""variants_table.py - side-by-side table of bench/segments.py runs.

    python3 tools/variants_table.py main=OUT/main.json exp=OUT/exp-x.json [--impl swage]

Each argument names one run (NAME=PATH, a JSON written by bench/segments.py,
as tools/prepare_variants.sh's variants/run.sh writes them) and the table
has one column per run, in the order given: the percent of the copy
bandwidth of one implementation (--impl, default "swage": auto) for every
distribution x op of any run, then every point of the sweep
(family@mean x op). A cell a run lacks (skipped for its time budget, or not
asked for) is "-". Standard library only: it runs where the JSON lands.
"""
import argparse
import json
import os
import sys


def cells(data, impl):
    """{(case, op): percent} for one run's JSON."""
    out = {}
    for dist, case in (data.get("distributions") or {}).items():
        for op, impls in (case.get("ops") or {}).items():
            value = (impls.get(impl) or {}).get("fraction_of_copy")
            if value is not None:
                out[(dist, op)] = 100.0 * value
    for point in (data.get("sweep") or {}).get("points") or []:
        key = "%s@%s" % (point.get("family"), point.get("mean_target"))
        for op, impls in (point.get("ops") or {}).items():
            value = (impls.get(impl) or {}).get("fraction_of_copy")
            if value is not None:
                out[(key, op)] = 100.0 * value
    return out


def table(runs, impl="swage"):
    """The table's lines for runs [(name, json data), ...]."""
    per_run = [(name, cells(data, impl)) for name, data in runs]
    rows = []
    for _, found in per_run:
        for key in found:
            if key not in rows:
                rows.append(key)
    width = max([13] + [len(name) + 1 for name, _ in per_run])
    lines = ["%-28s %-8s" % ("case", "op") + "".join("%*s" % (width, name) for name, _ in per_run)]
    for case, op in rows:
        line = "%-28s %-8s" % (case, op)
        for _, found in per_run:
            value = found.get((case, op))
            line += "%*s" % (width, "-" if value is None else "%.1f" % value)
        lines.append(line)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="NAME=PATH", help="a run's name and its JSON")
    parser.add_argument("--impl", default="swage",
                        help="the implementation to compare (default swage: auto; e.g. swage_cta, triton)")
    options = parser.parse_args(argv)
    runs = []
    for arg in options.runs:
        name, sep, path = arg.partition("=")
        if not sep or not name or not path:
            parser.error("expected NAME=PATH, got %r" % arg)
        try:
            with open(path) as f:
                runs.append((name, json.load(f)))
        except (OSError, ValueError) as e:
            parser.error("%s: %s" % (path, e))
    try:
        print("\n".join(table(runs, options.impl)))
        sys.stdout.flush()
    except BrokenPipeError:  # a pager or head that stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
