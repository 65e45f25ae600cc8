"""The check's rule table, baseline merging, and the committed smoke baseline against its own suite."""
import copy
import json
import os

import pytest

from sciml.bench import baseline, suite
from sciml.config import validate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _suite(**entry):
    raw = {"suite": "t", "tolerance": {"error": 0.5, "speed": 0.6},
           "entries": [{"name": "e", "study": "darcy_fd_order", **entry}]}
    return validate(suite.Suite, raw, "t.yaml")


def _results(metrics, steps_per_calib=None):
    return {"entries": {"e": {"status": "ok", "metrics": metrics, "steps_per_calib": steps_per_calib}}}


@pytest.mark.parametrize("kind, base, ok, bad, words", [
    ("metrics", 1.0, 1.5, 1.51, "exceeds the baseline"),       # error may grow by 50%
    ("speeds", 10.0, 4.0, 3.99, "falls below the baseline"),   # speed may fall by 60%
    ("costs", 2.0, 5.0, 5.01, "exceeds the baseline"),         # cost may grow as a 60% speed drop implies
])
def test_rules_pass_at_the_bound_and_fail_beyond(kind, base, ok, bad, words):
    s = _suite(**{kind: ["m"]})
    b = _results({"m": base})
    assert baseline.check(s, _results({"m": ok}), b) == []
    problems = baseline.check(s, _results({"m": bad}), b)
    assert len(problems) == 1 and problems[0].startswith("e: m = ") and words in problems[0]


def test_an_entry_may_carry_its_own_tolerance():
    """A short run whose errors move more between machines sets its own bounds (both: a field it leaves out takes
    the default, 0.5 for the speed here, not the suite's 0.6)."""
    s = _suite(metrics=["m"], tolerance={"error": 2.0})
    b = _results({"m": 1.0}, steps_per_calib=0.1)
    assert baseline.check(s, _results({"m": 3.0}, 0.1), b) == []
    assert "exceeds the baseline" in baseline.check(s, _results({"m": 3.01}, 0.1), b)[0]
    assert "falls below" in baseline.check(s, _results({"m": 1.0}, 0.049), b)[0]


def test_calibrated_run_speed_is_a_speed_and_missing_values_are_named():
    s = _suite(metrics=["m"])
    b = _results({"m": 1.0}, steps_per_calib=0.1)
    assert baseline.check(s, _results({"m": 1.0}, 0.041), b) == []
    slow = baseline.check(s, _results({"m": 1.0}, 0.039), b)
    assert len(slow) == 1 and slow[0].startswith("e: steps_per_calib = 0.039 falls below") and "0.39× the baseline" in slow[0]
    assert "missing from the results" in baseline.check(s, _results({}), b)[0]
    assert "missing from the baseline" in baseline.check(s, _results({"m": 1.0}), _results({}))[0]
    no_speed = baseline.check(s, _results({"m": 1.0}, 0.05), _results({"m": 1.0}))  # old baseline: name it
    assert len(no_speed) == 1 and "steps_per_calib missing from the baseline" in no_speed[0]
    assert baseline.check(s, _results({"m": 1.0}), b) == []  # a study without steps has no run speed
    failed = {"entries": {"e": {"status": "failed", "error": "exited 1"}}}
    assert baseline.check(s, failed, b) == ["e: exited 1"]


def test_baseline_stores_no_absolute_time():
    results = {"suite": "t", "machine": {}, "entries": {"a": {
        "status": "ok", "metrics": {"m": 1}, "steps_per_s": 80.0, "steps_per_calib": 0.08, "wall_time_s": 30.0,
        "calibration": {"rate": 1000.0}}}}
    assert baseline.baseline_of(results)["entries"] == {"a": {"metrics": {"m": 1}, "steps_per_calib": 0.08}}


def test_update_keeps_entries_not_run_and_drops_unknown_ones():
    previous = {"entries": {"a": {"metrics": {"m": 1}}, "b": {"metrics": {"m": 2}}, "gone": {}}}
    results = {"suite": "t", "machine": {}, "entries": {"a": {"status": "ok", "metrics": {"m": 3}},
                                                        "b": {"status": "failed"}}}
    out = baseline.baseline_of(results, previous, {"a", "b"})
    assert out["entries"] == {"a": {"metrics": {"m": 3}}, "b": {"metrics": {"m": 2}}}


def test_committed_smoke_baseline_passes_itself_and_fails_once_tightened(monkeypatch):
    """The CI baseline covers every checked metric of the smoke suite; tightening one error below what was
    measured makes the check fail and name it."""
    monkeypatch.chdir(ROOT)
    s, _ = suite.load_suite("smoke")
    with open(os.path.join(ROOT, "cases/suites/baselines/cpu/smoke.json"), encoding="utf-8") as fh:
        base = json.load(fh)
    results = {"entries": {n: {"status": "ok", **e} for n, e in base["entries"].items()}}
    assert set(results["entries"]) == {e.name for e in s.entries}
    assert baseline.check(s, results, base) == []
    tight = copy.deepcopy(base)
    tight["entries"]["plate_short"]["metrics"]["rel_l2_w"] *= 0.5
    problems = baseline.check(s, results, tight)
    assert len(problems) == 1 and problems[0].startswith("plate_short: rel_l2_w") and "exceeds" in problems[0]
