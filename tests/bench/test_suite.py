"""Benchmark suites: results, report, and --check against a baseline (which fails once tightened)."""
import json
import os

import pytest
import yaml

from sciml import catalog
from sciml.bench import baseline, suite
from sciml.bench.studies import STUDIES
from sciml.errors import UserError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SUITE = {
    "suite": "tiny",
    "tolerance": {"error": 0.25, "speed": 0.5},
    "entries": [{"name": "darcy_order", "study": "darcy_fd_order", "args": {"sizes": [9, 17, 33]},
                 "metrics": ["max_error_finest"], "info": ["observed_order"],
                 "references": {"observed_order": {"value": 2, "source": "theory"}}}],
}


def test_check_passes_then_fails_when_baseline_tightened(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    os.makedirs("cases/suites")
    with open("cases/suites/tiny.yaml", "w") as fh:
        yaml.safe_dump(SUITE, fh)
    assert suite.main(["tiny", "--out", "out1", "--update-baseline"]) == 0
    base_path = baseline.baseline_path("tiny")
    results = json.load(open("out1/results.json"))
    assert abs(results["entries"]["darcy_order"]["convergence"]["observed_order"] - 2) < 0.1
    report = open("out1/report.md").read()
    assert "| darcy_order | max_error_finest |" in report and "plots/darcy_order.png" in report
    assert os.path.getsize("out1/plots/darcy_order.png") > 1000

    assert suite.main(["tiny", "--out", "out2", "--check"]) == 0
    base = json.load(open(base_path))
    base["entries"]["darcy_order"]["metrics"]["max_error_finest"] *= 0.1  # ask for 10x better than we do
    json.dump(base, open(base_path, "w"))
    capsys.readouterr()
    assert suite.main(["tiny", "--out", "out3", "--check"]) == 1
    out = capsys.readouterr().out
    assert "CHECK FAILED: darcy_order: max_error_finest" in out and "exceeds the baseline" in out


def test_shipped_suites_are_consistent(monkeypatch):
    """Every suite under cases/suites validates; its cases and studies exist; curves and references name
    metrics the entry reports."""
    monkeypatch.chdir(ROOT)
    names = sorted(f[:-5] for f in os.listdir("cases/suites") if f.endswith(".yaml"))
    assert {"smoke", "standard", "autodiff"} <= set(names)
    for name in names:
        s, _ = suite.load_suite(name)
        for e in s.entries:
            assert (e.case and os.path.isfile(catalog.case_path(e.case))) or e.study in STUDIES, (name, e.name)
            reported = set(e.metrics + e.speeds + e.costs + e.info)
            assert set(e.references) <= reported, (name, e.name)
            assert e.curve is None or set(e.curve.points) <= reported, (name, e.name)
            assert e.timeout_s > 0


def _rel_l2_written(case_path: str) -> set[str]:
    """The ``rel_l2*`` metrics a case's summary holds: an FNO's test error at each resolution; a PINN's error
    of each derived field and vector (the equation's checks add others, not listed here)."""
    from sciml import cases
    from sciml.equations import create
    from sciml.solvers.pinn.geometry import build_geometry

    cfg = cases.load(case_path).config
    if cfg.solver == "fno":
        return {"rel_l2"} | {f"rel_l2_{r}" for r in cfg.data.super_resolution}
    eq = create(cfg.equation, build_geometry(cfg.geometry))
    return {f"rel_l2_{f}" for f in (*eq.derived_names, *eq.vectors)}


def test_case_entries_ask_for_rel_l2_metrics_their_solver_writes(monkeypatch):
    monkeypatch.chdir(ROOT)
    for name in ("smoke", "standard"):
        s, _ = suite.load_suite(name)
        for e in (e for e in s.entries if e.case):
            asked = {m for m in e.metrics + e.info if m.startswith("rel_l2")}
            assert asked <= _rel_l2_written(e.case), (name, e.name, asked - _rel_l2_written(e.case))


def test_only_runs_named_entries_and_rejects_unknown_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("cases/suites")
    two = {**SUITE, "entries": [SUITE["entries"][0], {**SUITE["entries"][0], "name": "other"}]}
    with open("cases/suites/tiny.yaml", "w") as fh:
        yaml.safe_dump(two, fh)
    assert suite.main(["tiny", "--out", "o", "--only", "other"]) == 0
    assert list(json.load(open("o/results.json"))["entries"]) == ["other"]
    with pytest.raises(UserError, match="no entry nope"):
        suite.main(["tiny", "--out", "o2", "--only", "nope"])
    with pytest.raises(UserError, match="no baseline"):
        suite.main(["tiny", "--out", "o3", "--check"])
    assert not os.path.exists("o3")  # a missing baseline stops before anything runs
