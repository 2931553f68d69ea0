"""tools/variants_table.py: the side-by-side table of bench/segments.py runs
that tools/prepare_variants.sh produces, on JSON written here and on a
committed result."""

import glob
import importlib.util
import json
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
spec = importlib.util.spec_from_file_location("variants_table", os.path.join(REPO, "tools", "variants_table.py"))
vt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vt)


def run(dists, points=()):
    """A bench/segments.py JSON: dists {dist: {op: {impl: fraction}}}, points [(family, mean, op, impl, f)]."""
    data = {"distributions": {d: {"ops": {op: {impl: {"fraction_of_copy": f} for impl, f in impls.items()}
                                          for op, impls in ops.items()}}
                              for d, ops in dists.items()}}
    if points:
        data["sweep"] = {"points": []}
        for family, mean, op, impl, f in points:
            data["sweep"]["points"].append({"family": family, "mean_target": mean,
                                            "ops": {op: {impl: {"fraction_of_copy": f}}}})
    return data


def test_columns_follow_the_runs_and_missing_cells_are_dashes():
    a = run({"tiny-uniform": {"sum": {"swage": 0.61, "triton": 0.03}}}, [("uniform", 1024, "sum", "swage", 0.8)])
    b = run({"tiny-uniform": {"sum": {"swage": 0.643}}, "bimodal": {"softmax": {"swage": 0.555}}})
    lines = vt.table([("main", a), ("exp", b)])
    assert lines[0].split() == ["case", "op", "main", "exp"]
    rows = [line.split() for line in lines[1:]]
    assert rows == [["tiny-uniform", "sum", "61.0", "64.3"],
                    ["uniform@1024", "sum", "80.0", "-"],
                    ["bimodal", "softmax", "-", "55.5"]]
    # another implementation of the same runs
    assert [line.split() for line in vt.table([("main", a), ("exp", b)], "triton")[1:]] == \
        [["tiny-uniform", "sum", "3.0", "-"]]


def test_a_committed_result(capsys):
    results = sorted(glob.glob(os.path.join(REPO, "bench", "results", "segments-*-h200.json")))
    assert results, "bench/results holds no segments benchmark"
    path = results[-1]
    with open(path) as f:
        data = json.load(f)
    assert vt.main(["table=" + path]) == 0
    out = capsys.readouterr().out.splitlines()
    want = 100 * data["distributions"]["medium-uniform"]["ops"]["sum"]["swage"]["fraction_of_copy"]
    assert ["medium-uniform", "sum", "%.1f" % want] in [line.split() for line in out]
    assert any(line.startswith("uniform@1048576") for line in out)


@pytest.mark.parametrize("arg", ["nopath", "=x.json", "name="])
def test_bad_arguments_are_usage_errors(arg, capsys):
    with pytest.raises(SystemExit) as e:
        vt.main([arg])
    assert e.value.code == 2 and "NAME=PATH" in capsys.readouterr().err


def test_an_unreadable_file_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        vt.main(["a=" + str(tmp_path / "absent.json")])
    assert e.value.code == 2 and "absent.json" in capsys.readouterr().err
