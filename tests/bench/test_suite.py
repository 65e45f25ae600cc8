"""Benchmark suites: results, report, and --check against a baseline (which fails once tightened)."""
import json
import os

import numpy as np
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


@pytest.mark.figures("darcy_order")
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
            assert not e.prepare or os.path.isfile(e.prepare[0]), (name, e.name)  # a script of the repository


def _rel_l2_written(case_path: str, overrides=()) -> set[str]:
    """The ``rel_l2*`` metrics a case's summary holds (with an entry's ``overrides``): an FNO's test error at each
    resolution (and decoded there from the training grid, with ``evaluation.decoded``); a PINN's error
    of each derived field and vector, and on each of its error regions (the equation's checks add others, not
    listed here)."""
    from sciml import cases
    from sciml.equations import create
    from sciml.solvers.pinn.geometry import build_geometry

    cfg = cases.load(case_path, list(overrides)).config
    if cfg.solver == "fno":
        from sciml.solvers.fno.run import derived_physics

        physics = derived_physics(cfg)  # the plate's moments, at every test resolution
        suffixes = ["", *(f"_{r}" for r in cfg.data.super_resolution)]
        decoded = {f"rel_l2_{r}_decoded" for r in cfg.data.super_resolution} if cfg.evaluation.decoded else set()
        return {f"rel_l2{s}" for s in suffixes} | decoded | {
            f"rel_l2_{name}{s}" for name in (physics.derived_names if physics else ()) for s in suffixes}
    eq = create(cfg.equation, build_geometry(cfg.geometry))
    fields = {f"rel_l2_{f}" for f in (*eq.derived_names, *eq.vectors)}
    regions = eq.error_regions(np.array([[lo for lo, _ in eq.domain.bounds]]))  # the suffixes, at any point
    return fields | {f"{f}_{suffix}" for f in fields for suffix in regions}


def test_case_entries_ask_for_rel_l2_metrics_their_solver_writes(monkeypatch):
    monkeypatch.chdir(ROOT)
    for name in ("smoke", "standard"):
        s, _ = suite.load_suite(name)
        for e in (e for e in s.entries if e.case):
            asked = {m for m in e.metrics + e.info if m.startswith("rel_l2")}
            written = _rel_l2_written(e.case, e.overrides)
            assert asked <= written, (name, e.name, asked - written)


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


TWO = {
    "suite": "two",
    "entries": [
        {"name": "first", "case": "darcy_fno_quick", "metrics": ["rel_l2"],
         "references": {"rel_l2": {"value": 0.02, "source": "paper"}}},
        {"name": "second", "case": "burgers_fno_quick", "overrides": ["training.epochs=3"], "metrics": ["rel_l2"],
         "references": {"rel_l2": {"value": 0.004, "source": "paper"}}},
    ],
}


def _ran(name: str, error: float) -> dict:
    spread = {"metric": "rel_l2", "k": 5, "n": 5, "mean": error * 1.1, "std": error / 10, "min": error,
              "max": error * 1.3}
    return {"status": "ok", "metrics": {"rel_l2": error}, "wall_time_s": 12.0, "training_s": 10.0, "last_k": spread}


@pytest.mark.parametrize("first_try", ["fails", "is killed"])
def test_resume_keeps_finished_entries_and_runs_the_rest(tmp_path, monkeypatch, capsys, first_try):
    """The second entry fails (or the suite is killed while it runs); --resume runs only that entry, telling it
    to continue its run, and the report has both."""
    monkeypatch.chdir(tmp_path)
    os.makedirs("cases/suites")
    with open("cases/suites/two.yaml", "w") as fh:
        yaml.safe_dump(TWO, fh)
    calls = []

    def first(entry, out, log=print, resume=False):
        calls.append((entry.name, resume))
        if entry.name == "first":
            return _ran("first", 0.03)
        if first_try == "fails":
            return {"status": "failed", "error": "exited 1", "wall_time_s": 1.0}
        raise KeyboardInterrupt  # the suite stopped while the second entry ran

    monkeypatch.setattr(suite, "run_entry", first)
    if first_try == "fails":
        assert suite.main(["two", "--out", "o"]) == 1
    else:
        with pytest.raises(KeyboardInterrupt):
            suite.main(["two", "--out", "o"])
    assert calls == [("first", False), ("second", False)]
    written = json.load(open("o/results.json"))["entries"]
    assert written["first"]["status"] == "ok" and list(written) == ["first", "second"][:1 + (first_try == "fails")]

    calls.clear()
    monkeypatch.setattr(suite, "run_entry", lambda entry, out, log=print, resume=False:
                        calls.append((entry.name, resume)) or {**_ran("second", 0.006), "resumed": True})
    capsys.readouterr()
    assert suite.main(["two", "--resume", "o"]) == 0
    assert calls == [("second", True)]
    assert "resuming o: 1 of 2 entries finished there (first); 1 to run" in capsys.readouterr().out
    results = json.load(open("o/results.json"))
    assert {n: r["status"] for n, r in results["entries"].items()} == {"first": "ok", "second": "ok"}
    assert results["entries"]["first"]["metrics"]["rel_l2"] == 0.03 and len(results["resumed"]) == 1
    report = open("o/report.md").read()
    assert "| first | rel_l2 | 0.03 | 0.02 | 1.5 | 12 | 10 | 0.033 ± 0.003 (0.03–0.039; last 5) | paper |" in report
    assert "| second | rel_l2 | 0.006 | 0.004 | 1.5 | 12 (resumed) | 10 | 0.0066 ± 0.0006 (0.006–0.0078; last 5) " \
           "| paper |" in report
    assert "| first | ok |" in report and "| second | ok |" in report


def test_resume_refuses_a_missing_damaged_or_other_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("cases/suites")
    with open("cases/suites/two.yaml", "w") as fh:
        yaml.safe_dump(TWO, fh)
    monkeypatch.setattr(suite, "run_entry", lambda *a, **k: pytest.fail("nothing may run"))
    with pytest.raises(UserError, match="^nope: no such results folder to resume$"):
        suite.main(["two", "--resume", "nope"])
    os.makedirs("o")
    with open("o/results.json", "w") as fh:
        fh.write('{"suite": "two", "entr')
    with pytest.raises(UserError, match=r"^o/results.json: damaged results file \(JSONDecodeError: "):
        suite.main(["two", "--resume", "o"])
    with open("o/results.json", "w") as fh:
        json.dump({"suite": "smoke", "entries": {}}, fh)
    with pytest.raises(UserError, match="holds results of suite 'smoke', not 'two'; resume it with sciml bench "
                                        "smoke --resume o"):
        suite.main(["two", "--resume", "o"])


@pytest.mark.parametrize("checkpoint", [True, False])
def test_a_resumed_entry_continues_its_run_from_its_checkpoint(tmp_path, monkeypatch, checkpoint):
    """``sciml run --resume RUN`` where the first try left a checkpoint; else the case afresh in the same
    folder (``--force``: the first try's files go)."""
    out = tmp_path / "entry"
    if checkpoint:
        (out / "checkpoints").mkdir(parents=True)
        (out / "checkpoints" / "latest.h5").write_bytes(b"")
    argv = []

    def fake(command, timeout, log):
        argv.append(command[command.index("sciml") + 1:])
        summary = {"metrics": {"rel_l2": 0.01}, "wall_time_s": 99.0, "steps_per_cpu_s": 3.0,
                   "last_k": {"metric": "rel_l2", "k": 5, "n": 2}}
        out.mkdir(exist_ok=True)
        (out / "summary.json").write_text(json.dumps(summary))
        return 0, 5.0, 100.0

    monkeypatch.setattr(suite, "_subprocess", fake)
    monkeypatch.setattr(suite.calibration, "around", lambda run: run())
    entry = suite.Entry(name="e", case="darcy_fno_quick", overrides=["training.epochs=3"])
    r = suite.run_case(entry, entry.overrides, str(out), resume=True)
    expected = (["run", "--resume", str(out), "--quiet"] if checkpoint else
                ["run", "darcy_fno_quick", "training.epochs=3", "--out", str(out), "--quiet", "--force"])
    assert argv == [expected]
    assert r["status"] == "ok" and r["training_s"] == 99.0 and r["last_k"]["n"] == 2
    assert r.get("resumed", False) == checkpoint
    argv.clear()
    suite.run_case(entry, entry.overrides, str(out))  # a suite not resumed runs the case as given
    assert argv == [["run", "darcy_fno_quick", "training.epochs=3", "--out", str(out), "--quiet"]]


def test_jobs_run_entries_at_once_each_in_its_own_process_and_timing_studies_alone(tmp_path, monkeypatch, capsys):
    """``--jobs 2``: the entries run two at a time in processes of their own, the results in the suite's order
    and as one at a time gives them; a study that times speed-ups in its process runs alone."""
    monkeypatch.chdir(tmp_path)
    os.makedirs("cases/suites")
    entries = [{**SUITE["entries"][0], "name": n} for n in ("one", "two", "three")]
    with open("cases/suites/tiny.yaml", "w") as fh:
        yaml.safe_dump({**SUITE, "entries": entries}, fh)
    assert suite.main(["tiny", "--out", "serial"]) == 0
    capsys.readouterr()
    assert suite.main(["tiny", "--out", "parallel", "--jobs", "2"]) == 0
    assert "3 entries 2 at a time, then 0 alone" in capsys.readouterr().out
    serial, parallel = (json.load(open(f"{d}/results.json"))["entries"] for d in ("serial", "parallel"))
    assert list(parallel) == ["one", "two", "three"]
    for name in serial:
        assert parallel[name]["metrics"] == serial[name]["metrics"]
    timing = suite.Entry(name="ad", study="autodiff_ratios", speeds=["pinn_step_speedup_nested"])
    assert suite.alone(timing) and not suite.alone(suite.Entry(name="o", study="darcy_fd_order", metrics=["e"]))
    assert not suite.alone(suite.Entry(name="c", case="plate", metrics=["rel_l2_w"]))
    assert not suite.alone(suite.Entry(name="t", study="autodiff_ratios", speeds=["s"], alone=False))
    assert suite.alone(suite.Entry(name="c", case="plate", metrics=["rel_l2_w"], alone=True))
    with pytest.raises(UserError, match="--jobs 0: give 1 or more"):
        suite.main(["tiny", "--out", "none", "--jobs", "0"])


def test_an_entry_prepares_with_its_script_then_makes_the_data_then_runs(tmp_path, monkeypatch):
    """``prepare: [SCRIPT.py, args]`` runs the script with the suite's Python before ``sciml datagen`` and ``sciml
    run``; a script that fails stops the entry there, naming it."""
    out, argv, codes = tmp_path / "entry", [], {}

    def fake(command, timeout, log):
        argv.append(command)
        out.mkdir(exist_ok=True)
        (out / "summary.json").write_text(json.dumps({"metrics": {"rel_l2": 0.01}}))
        return codes.get(command[1], 0), 2.0, 100.0

    monkeypatch.setattr(suite, "_subprocess", fake)
    monkeypatch.setattr(suite.calibration, "around", lambda run: run())
    entry = suite.Entry(name="e", case="c.yaml", datagen=True, prepare=["make.py", "data/x.h5"])
    r = suite.run_case(entry, [], str(out))
    assert [a[1:3] for a in argv] == [["make.py", "data/x.h5"], ["-m", "sciml"], ["-m", "sciml"]]
    assert argv[0][0] == suite.sys.executable and [a[3] for a in argv[1:]] == ["datagen", "run"]
    assert r["status"] == "ok" and r["prepare_s"] == r["datagen_s"] == 2.0
    argv.clear()
    codes["make.py"] = 1
    r = suite.run_case(entry, [], str(out))
    assert len(argv) == 1 and r["status"] == "failed" and r["error"].startswith("make.py exited 1; see ")


@pytest.mark.parametrize("entry,said", [
    ({"name": "s", "study": "darcy_fd_order", "prepare": ["make.py"]}, "prepare: runs before a case"),
    ({"name": "c", "case": "plate", "prepare": ["make", "x.h5"]}, "prepare: starts with the Python script"),
])
def test_a_prepare_is_a_python_script_before_a_case(tmp_path, entry, said, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"suite": "s", "entries": [entry]}))
    with pytest.raises(UserError, match=said):
        suite.load_suite(str(path))


def test_no_plots_runs_the_entries_with_figures_off_and_restores_the_environment(tmp_path, monkeypatch):
    """``--no-plots``: every process started for an entry inherits ``SCIML_PLOTS=off``; the caller's setting
    is back once the suite has run (the report draws as it says)."""
    monkeypatch.chdir(tmp_path)
    os.makedirs("cases/suites")
    with open("cases/suites/two.yaml", "w") as fh:
        yaml.safe_dump(TWO, fh)
    seen = []

    def fake(command, timeout, log):
        seen.append(os.environ.get("SCIML_PLOTS"))
        out = command[command.index("--out") + 1]
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "summary.json"), "w") as fh:
            json.dump({"metrics": {"rel_l2": 0.01}}, fh)
        return 0, 1.0, 100.0

    monkeypatch.setattr(suite, "_subprocess", fake)
    monkeypatch.setattr(suite.calibration, "around", lambda run: run())
    monkeypatch.setenv("SCIML_PLOTS", "only:loss")
    assert suite.main(["two", "--out", "o", "--no-plots"]) == 0
    assert seen == ["off", "off"] and os.environ["SCIML_PLOTS"] == "only:loss"
    seen.clear()
    assert suite.main(["two", "--out", "p"]) == 0
    assert seen == ["only:loss", "only:loss"]
    monkeypatch.delenv("SCIML_PLOTS")
    assert suite.main(["two", "--out", "q", "--no-plots"]) == 0
    assert seen[-2:] == ["off", "off"] and "SCIML_PLOTS" not in os.environ
