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


@pytest.mark.parametrize("command", ["show", "run"])
def test_unknown_loss_term(tmp_path, capsys, command):
    """Loss term names are known once the problem is assembled: loading a case assembles it when it sets
    weights, so show refuses the name as run does, and run before making its folder."""
    path = write_case(tmp_path)
    flags = ["--out", str(tmp_path / "r"), "--quiet"] if command == "run" else []
    code, _, errtext = run_cli(capsys, command, path, "loss.weights.pdf=2", *flags)
    assert code == 2 and not (tmp_path / "r").exists()
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


@pytest.mark.figures("loss", "w", "mx")
def test_run_writes_run_folder(tmp_path, capsys):
    out = tmp_path / "run"
    code, stdout, _ = run_cli(capsys, "run", write_case(tmp_path), "--out", str(out), "--quiet")
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["case"] == "tiny_plate" and summary["steps"] == 40
    assert {"rel_l2_w", "rel_l2_mx", "rel_l2_my"} <= set(summary["metrics"])
    for f in ("config.yaml", "metrics.csv", "fields.h5", "checkpoints/latest.h5", "checkpoints/model.h5",
              "plots/loss.png", "plots/w.png", "plots/mx.png"):
        assert (out / f).is_file(), f
    assert not [f for f in os.listdir(out) if f.endswith(".tmp")]


def test_resume_with_only_the_model_says_how_to_continue_from_it(tmp_path, capsys):
    """(Its runs also show that --no-plots writes everything but the figures.)"""
    import shutil

    out = tmp_path / "r"
    assert run_cli(capsys, "run", write_case(tmp_path, training__adam__steps=20), "--out", str(out), "--quiet",
                   "--no-plots")[0] == 0
    assert (out / "fields.h5").is_file() and (out / "metrics.csv").is_file() and not list(out.glob("plots/*.png"))
    latest, model = out / "checkpoints" / "latest.h5", out / "checkpoints" / "model.h5"
    for f in (latest, out / "checkpoints" / "latest.prev.h5"):  # no latest version at all: model.h5 is left
        f.unlink(missing_ok=True)
    code, _, errtext = run_cli(capsys, "run", "--resume", str(out), "--quiet")
    assert code == 2 and errtext.count("\n") == 1 and "Traceback" not in errtext
    assert errtext == (f"error: {latest}: no checkpoint to resume from, but {model} exists (the model, step 20, "
                       f"without the optimizer's state); to continue from it, the optimizer starting afresh: "
                       f"cp {model} {latest} && sciml run --resume {out}\n")
    shutil.copy(model, latest)  # as the message says
    code, printed, _ = run_cli(capsys, "run", "--resume", str(out), "--quiet", "--no-plots")
    assert code == 0 and json.loads(printed[:printed.rindex("}") + 1])["steps"] == 20


# --- the command line itself: arguments, help, run folders, exit statuses ----------------------------------
@pytest.fixture
def runs(monkeypatch):
    """``sciml run`` records the case and folder it would train instead of training: a list of (config, out)."""
    from sciml import cases

    seen = []

    def fake_run(case, out=None, resume=None, quiet=False):
        seen.append((case.config, out))
        return {"case": case.config.case, "steps": case.config.training.adam.steps, "run_dir": out}
    monkeypatch.setattr(cases, "run", fake_run)
    return seen


@pytest.mark.parametrize("order", [
    ["CASE", "--out", "OUT", "training.adam.steps=10", "seed=5"],
    ["CASE", "training.adam.steps=10", "--quiet", "seed=5", "--out", "OUT"],
    ["--out", "OUT", "CASE", "training.adam.steps=10", "--quiet", "seed=5"],
    ["--quiet", "training.adam.steps=10", "--out", "OUT", "CASE", "seed=5"],
])
def test_overrides_and_flags_mix_in_any_order(tmp_path, capsys, runs, order):
    path, out = write_case(tmp_path), str(tmp_path / "r")
    argv = [path if a == "CASE" else out if a == "OUT" else a for a in order]
    assert run_cli(capsys, "run", *argv)[0] == 0
    (config, folder), = runs
    assert (config.training.adam.steps, config.seed, folder) == (10, 5, out)


def test_later_overrides_win_in_the_order_typed(tmp_path, capsys, runs):
    path = write_case(tmp_path)
    run_cli(capsys, "run", path, "seed=1", "--quiet", "seed=2", "--out", str(tmp_path / "r"), "seed=7")
    assert runs[0][0].seed == 7


def test_an_unknown_flag_is_still_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", write_case(tmp_path), "--outt", "d", "seed=1"])
    assert e.value.code == 2 and "unrecognized arguments: --outt d" in capsys.readouterr().err


def test_datagen_out_sets_the_dataset_path_after_flags(tmp_path, capsys, monkeypatch):
    from sciml import cases

    from cli_cases import TINY_DARCY

    made = []
    monkeypatch.setattr(cases, "datagen", lambda case, **kw: made.append(case.config.data) or case.config.data.path)
    path, dest = write_case(tmp_path, TINY_DARCY), str(tmp_path / "a dir" / "123")  # a path YAML would read as a number
    code, out, _ = run_cli(capsys, "datagen", path, "--quiet", "--out", dest, "data.n_train=20")
    assert code == 0 and out == f"dataset: {dest}\n"
    assert (made[0].path, made[0].n_train) == (dest, 20)
    assert "data.path" in " ".join(parser_of("datagen").format_help().split())


def parser_of(command):
    from sciml.cli import parser

    sub = next(a for a in parser()._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    return sub.choices[command]


@pytest.mark.parametrize("command", ["run", "show", "cases", "datagen", "export", "predict", "bench"])
def test_every_command_and_argument_has_help(capsys, command):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith(f"usage: sciml {command}")
    from sciml.cli import parser

    assert command in parser().format_help()
    assert all(a.help for a in parser_of(command)._actions), [a.dest for a in parser_of(command)._actions if not a.help]


def test_bench_help_lists_the_benchmarks(capsys):
    from sciml.cli import benchmarks

    with pytest.raises(SystemExit) as e:
        main(["bench", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert e.value.code == 0 and all(name in out for name in benchmarks()) and "suite" in out


@pytest.mark.parametrize("argv,usage", [(["show"], "sciml show CASE.yaml"), (["datagen"], "sciml datagen CASE.yaml"),
                                        (["show", "seed=1"], "sciml show CASE.yaml"), (["bench"], "sciml bench NAME")])
def test_a_missing_argument_is_one_line_of_usage(capsys, argv, usage):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and usage in err and "required" not in err


def test_version(capsys):
    from sciml.version import __version__

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out == f"sciml {__version__}\n"


def _old_run(folder):
    (folder / "checkpoints").mkdir(parents=True)
    for f in ("config.yaml", "metrics.csv", "checkpoints/latest.h5"):
        (folder / f).write_text("old")


def test_out_holding_a_run_is_refused(tmp_path, capsys, runs):
    out = tmp_path / "r"
    _old_run(out)
    code, _, err = run_cli(capsys, "run", write_case(tmp_path), "--out", str(out))
    assert code == 2 and not runs
    assert err == (f"error: {out}: holds a previous run; continue it with `sciml run --resume {out}`, start afresh "
                   "in it with --force, or give another --out\n")
    assert (out / "metrics.csv").read_text() == "old"


def test_force_starts_afresh_in_a_run_folder(tmp_path, capsys, runs):
    out = tmp_path / "r"
    _old_run(out)
    code, _, err = run_cli(capsys, "run", write_case(tmp_path), "--out", str(out), "--force")
    assert code == 0 and runs[0][1] == str(out)
    assert err == f"warning: --force: removed the previous run in {out} (3 files)\n"
    assert [f for f in os.listdir(out) if f != ".lock"] == []


def test_force_never_empties_a_folder_that_is_not_a_run(tmp_path, capsys, runs):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    code, _, err = run_cli(capsys, "run", write_case(tmp_path), "--out", str(mine), "--force")
    assert code == 2 and not runs and (mine / "notes.txt").read_text() == "keep"
    assert err == f"error: {mine}: holds files and is not a run folder (no config.yaml); give an empty or new --out\n"


def test_out_with_empty_subfolders_is_taken(tmp_path, capsys, runs):
    out = tmp_path / "r"
    (out / "plots").mkdir(parents=True)  # what a run refused before training leaves
    assert run_cli(capsys, "run", write_case(tmp_path), "--out", str(out))[0] == 0 and runs


def test_force_and_resume_together_are_refused(tmp_path, capsys, runs):
    code, _, err = run_cli(capsys, "run", "--resume", str(tmp_path), "--force")
    assert code == 2 and err == "error: --force starts afresh and --resume continues: give one of them\n"


def test_a_diverged_run_has_its_own_exit_status(tmp_path, capsys, monkeypatch):
    from sciml import cases
    from sciml.errors import TrainingDiverged

    def diverge(*args, **kwargs):
        raise TrainingDiverged("loss became nan at step 30; training stopped")
    monkeypatch.setattr(cases, "run", diverge)
    code, _, err = run_cli(capsys, "run", write_case(tmp_path), "--quiet")
    assert (code, err) == (3, "error: loss became nan at step 30; training stopped\n")
    assert code != 2  # a typo's status
    assert "3    training failed" in parser_of("run").format_help()


def test_force_leaves_a_run_folder_a_live_run_holds(tmp_path, capsys, runs):
    from sciml import rundir

    out = tmp_path / "r"
    _old_run(out)
    with rundir.hold(str(out)):  # another open file description: flock refuses it as it would another process
        code, _, err = run_cli(capsys, "run", write_case(tmp_path), "--out", str(out), "--force")
    assert code == 2 and not runs and err.startswith(f"error: {out}: in use by another run (PID ")
    assert (out / "metrics.csv").read_text() == "old"


def test_out_naming_a_file_is_refused(tmp_path, capsys, runs):
    out = tmp_path / "file"
    out.write_text("x")
    code, _, err = run_cli(capsys, "run", write_case(tmp_path), "--out", str(out))
    assert code == 2 and err == f"error: {out}: exists and is not a folder; give a folder for --out\n"


def test_a_closed_pipe_stops_quietly():
    """``sciml cases | head -1``: the first line, and no traceback when head stops reading."""
    import subprocess
    import sys

    done = subprocess.run(f"{sys.executable} -m sciml cases | head -1", shell=True, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.startswith("cases") and done.stderr == ""


def test_predict_passes_the_refinement_s_learning_rate_and_refuses_a_bad_one(tmp_path, monkeypatch, capsys):
    """``sciml predict RUN POINTS --refine STEPS --lr RATE`` hands the rate to ``load_run(RUN).predict`` (without
    ``--lr``, predict's own default); a rate that is not a positive number stops argparse."""
    import h5py
    import numpy as np

    from sciml import results

    asked = []

    class Run:
        def predict(self, x, **kw):
            asked.append(kw)
            return {"prediction": x}

    monkeypatch.setattr(results, "load_run", lambda folder: Run())
    with h5py.File(tmp_path / "in.h5", "w") as f:
        f["inputs"] = np.zeros((2, 5, 5, 1), np.float32)
    points, out = str(tmp_path / "in.h5"), str(tmp_path / "out.h5")
    assert main(["predict", str(tmp_path), points, "--refine", "5", "--lr", "1e-2", "--out", out]) == 0
    assert main(["predict", str(tmp_path), points, "--refine", "5", "--out", out]) == 0
    assert asked[0]["lr"] == 0.01 and asked[0]["refine"] == 5 and asked[1]["lr"] is None  # None: predict's default
    assert main(["predict", str(tmp_path), points, "--refine", "5", "--method", "weights", "--out", out]) == 0
    assert asked[1]["method"] is None and asked[2]["method"] == "weights" and asked[2]["every"] is None
    for bad in ("0", "-1e-3", "fast", "nan", "inf"):
        with pytest.raises(SystemExit) as stop:
            main(["predict", str(tmp_path), points, "--refine", "5", f"--lr={bad}"])
        assert stop.value.code == 2 and f"expected a positive number, got {bad!r}" in capsys.readouterr().err
