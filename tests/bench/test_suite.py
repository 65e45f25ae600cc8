"""Benchmark suites: results, report, and --check against a baseline (which fails once tightened)."""
import json
import os

import yaml

from sciml.bench import suite

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
    base_path = os.path.join("cases", "suites", "baselines", suite.machine_class(), "tiny.json")
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
