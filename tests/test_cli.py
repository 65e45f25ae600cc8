"""The command line: each class of user mistake gives one line naming the file and key, and exit 2."""
import json
import os
import subprocess
import sys

import pytest

from sciml.cli import main

from cli_cases import write_case


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, errtext = capsys.readouterr()
    return code, out, errtext


@pytest.mark.parametrize("changes,overrides,expected", [
    ({"training__adam__stpes": 3}, [], "training.adam.stpes: unknown key (did you mean 'steps'?)"),
    ({"training__adam__steps": "many"}, [], "training.adam.steps: expected an integer"),
    ({"sampling__interior": 0}, [], "sampling.interior: must be >= 1"),
    ({"equation__nu": 0.7}, [], "equation.nu: must be < 0.5"),
    ({"equation__load": "import os"}, [], "equation.load: cannot parse"),
    ({"equation__load": "__import__('os')"}, [], "equation.load: only calls of sin, cos"),
    ({"equation__edges": {"left": "clamp"}}, [], "equation.edges.left: must be one of"),
    ({}, ["model.activaton=sin"], "model.activaton: unknown key (did you mean 'activation'?)"),
])
def test_config_errors(tmp_path, capsys, changes, overrides, expected):
    path = write_case(tmp_path, **changes)
    code, out, errtext = run_cli(capsys, "show", path, *overrides)
    assert code == 2
    source = "command line" if overrides and "unknown key" not in expected else path
    assert errtext.startswith(f"error: {source}: {expected}")
    assert errtext.count("\n") == 1 and "Traceback" not in errtext


def test_unknown_loss_term(tmp_path, capsys):
    """Loss term names are known once the problem is assembled, so this one surfaces at run time."""
    path = write_case(tmp_path)
    code, _, errtext = run_cli(capsys, "run", path, "loss.weights.pdf=2", "--out", str(tmp_path / "r"), "--quiet")
    assert code == 2
    assert errtext.startswith(f"error: {path}: loss.weights.pdf: unknown loss term (did you mean 'pde'?)")


def test_missing_file(capsys, tmp_path):
    code, _, errtext = run_cli(capsys, "show", str(tmp_path / "nope.yaml"))
    assert code == 2 and "nope.yaml: no such case file" in errtext


def test_malformed_yaml(capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("case: x\nsolver: [pinn\n")
    code, _, errtext = run_cli(capsys, "show", str(path))
    assert code == 2 and "bad.yaml: malformed YAML: line" in errtext and errtext.count("\n") == 1


@pytest.mark.parametrize("override", ["training.adam.steps", "=3", "a..b=1"])
def test_bad_override_syntax(capsys, tmp_path, override):
    code, _, errtext = run_cli(capsys, "show", write_case(tmp_path), override)
    assert code == 2 and "bad override" in errtext


def test_show_applies_overrides(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "show", write_case(tmp_path), "training.adam.steps=7", "model.hidden=[4,4]")
    assert code == 0 and "steps: 7" in out and "- 4" in out


def test_no_traceback_from_subprocess(tmp_path):
    path = write_case(tmp_path, training__adam__stpes=3)
    p = subprocess.run([sys.executable, "-m", "sciml", "run", path], capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [f"error: {path}: training.adam.stpes: unknown key (did you mean 'steps'?)"]


def test_run_writes_run_folder(tmp_path, capsys):
    out = tmp_path / "run"
    code, stdout, _ = run_cli(capsys, "run", write_case(tmp_path), "--out", str(out), "--quiet")
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["case"] == "tiny_plate" and summary["steps"] == 40
    assert {"rel_l2_w", "rel_l2_mx", "rel_l2_my"} <= set(summary["metrics"])
    for f in ("config.yaml", "metrics.csv", "fields.h5", "checkpoints/latest.h5", "checkpoints/best.h5",
              "plots/loss.png", "plots/w.png", "plots/mx.png"):
        assert (out / f).is_file(), f
    assert not [f for f in os.listdir(out) if f.endswith(".tmp")]


def test_resume_with_only_best_says_how_to_continue_from_it(tmp_path, capsys):
    import shutil

    out = tmp_path / "r"
    assert run_cli(capsys, "run", write_case(tmp_path, training__adam__steps=20), "--out", str(out), "--quiet")[0] == 0
    latest, best = out / "checkpoints" / "latest.h5", out / "checkpoints" / "best.h5"
    for f in (latest, out / "checkpoints" / "latest.prev.h5"):  # no latest version at all: best.h5 is left
        f.unlink(missing_ok=True)
    code, _, errtext = run_cli(capsys, "run", "--resume", str(out), "--quiet")
    assert code == 2 and errtext.count("\n") == 1 and "Traceback" not in errtext
    assert errtext == (f"error: {latest}: no checkpoint to resume from, but {best} exists (the lowest-loss state, "
                       f"step 20); to continue from it: cp {best} {latest} && sciml run --resume {out}\n")
    shutil.copy(best, latest)  # as the message says
    code, printed, _ = run_cli(capsys, "run", "--resume", str(out), "--quiet")
    assert code == 0 and json.loads(printed[:printed.rindex("}") + 1])["steps"] == 20
