"""End to end through the command line with the classical solvers: ``sciml datagen`` then ``sciml run``."""
import glob
import json
import os

import pytest

from sciml import cases
from sciml.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_datagen_then_run_beats_the_untrained_model(tmp_path, capsys, case_file):
    path = case_file(tmp_path, data__solve_resolution=33, data__super_resolution=[17, 33])
    assert main(["datagen", path, "--quiet"]) == 0
    out = tmp_path / "run"
    assert main(["run", path, "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["metrics"]) == {"rel_l2", "rel_l2_17", "rel_l2_33"}
    assert f'"rel_l2": {summary["metrics"]["rel_l2"]}' in printed and f"run folder: {out}" in printed
    assert summary["metrics"]["rel_l2"] < 0.5 * summary["initial_rel_l2"]
    assert all(v < summary["initial_rel_l2"] for v in summary["metrics"].values())


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "cases", "*fno*.yaml"))),
                         ids=os.path.basename)
def test_shipped_cases_validate(path):
    cfg = cases.load(path).config
    assert cfg.solver == "fno" and cfg.data.path == f"data/{os.path.basename(cfg.data.path)}"


@pytest.mark.parametrize("override,message", [
    ("data.params.edges=free", "data.params: edges: expected one of simply_supported, clamped, got 'free'"),
    ("data.params.loads=[gauss]", "data.params: loads: expected a list of grf, patches, got ['gauss']"),
    ("data.params.patch_width=3", "data.params: patch_width: expected [smallest, largest] side, got 3"),
])
def test_a_bad_value_of_the_plate_generator_is_one_line_before_any_solve(capsys, override, message):
    assert main(["show", "cases/plate_operator_quick.yaml", override]) == 2
    assert capsys.readouterr().err == f"error: cases/plate_operator_quick.yaml: {message}\n"
