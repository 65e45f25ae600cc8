"""Baselines of benchmark suites and the check against them.

A baseline (``baselines/<cpu|gpu>/<suite>.json`` beside the suite file, e.g. in ``cases/suites/``) holds, per
entry, the metrics of a run on that class of machine and, for a run that trains, its ``steps_per_calib``:
steps/s divided by the rate of a fixed calibration workload timed right before and after it
(:mod:`.calibration`). Every speed the check compares is thus a ratio measured in the same run (the entries'
``speeds`` and ``costs`` are ratios measured in one process, such as the engine against nested JAX): no absolute
time from another day or machine is compared.
:data:`RULES` says how each kind of metric an entry names may move: an error (``metrics``) may grow by
``tolerance.error``, a speed (``speeds``, and every run's ``steps_per_calib``) may fall by ``tolerance.speed``,
a cost (``costs``, a time ratio) may grow by as much as that speed drop implies.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .schema import Entry, Suite, Tolerance

SUITES_DIR = os.path.join("cases", "suites")


@dataclass(frozen=True)
class Rule:
    """How a kind of metric may move against its baseline: ``bound(base, tol)`` and which side is good."""
    tolerance: str
    bound: Callable[[float, float], float]
    higher_is_better: bool
    words: str


RULES = {  # entry field -> rule; a speed of s falling by tol is the same as a cost of 1/s growing by 1/(1-tol)
    "metrics": Rule("error", lambda base, tol: base * (1 + tol), False, "exceeds"),
    "speeds": Rule("speed", lambda base, tol: base * (1 - tol), True, "falls below"),
    "costs": Rule("speed", lambda base, tol: base / (1 - tol), False, "exceeds"),
}


RUN_SPEED = "steps_per_calib"  # a run's steps/s over the calibration rate measured around it


def checked(entry: Entry) -> list[tuple[str, str]]:
    """(kind, metric) pairs an entry's check covers, with the run's calibrated speed as a speed."""
    return [(kind, m) for kind in RULES for m in getattr(entry, kind)] + [("speeds", RUN_SPEED)]


def value(result: dict, metric: str):
    """A metric from a result or baseline entry (a run's speeds sit beside the metrics)."""
    return result.get("metrics", {}).get(metric, result.get(metric))


def check(suite: Suite, results: dict, baseline: dict) -> list[str]:
    """Problems of the entries in ``results`` against ``baseline`` (empty when all is well)."""
    problems = []
    for entry in (e for e in suite.entries if e.name in results["entries"]):
        r, b = results["entries"].get(entry.name, {}), baseline.get("entries", {}).get(entry.name)
        if r.get("status") != "ok":
            problems.append(f"{entry.name}: {r.get('error', 'did not run')}")
            continue
        if b is None:
            problems.append(f"{entry.name}: no baseline (run with --update-baseline)")
            continue
        for kind, m in checked(entry):
            ours = value(r, m)
            problems += _compare(entry.name, m, ours, value(b, m), RULES[kind], entry.tolerance or suite.tolerance,
                                 required=m != RUN_SPEED or ours is not None)
    return problems


def _compare(name: str, metric: str, ours, base, rule: Rule, tolerance: Tolerance, required: bool) -> list[str]:
    if ours is None or base is None:
        if not required:
            return []
        where = "the results" if ours is None else "the baseline (run with --update-baseline)"
        return [f"{name}: metric {metric} missing from {where}"]
    tol = getattr(tolerance, rule.tolerance)
    bound = rule.bound(base, tol)
    if (ours >= bound) if rule.higher_is_better else (ours <= bound):
        return []
    ratio = f"{ours / base:.2f}× the baseline, " if base else ""
    return [f"{name}: {metric} = {ours:.4g} {rule.words} the baseline {base:.4g} by more than the "
            f"{rule.tolerance} tolerance {tol:.0%} ({ratio}bound {bound:.4g})"]


def baseline_of(results: dict, previous: dict | None = None, names=None) -> dict:
    """This run's metrics and calibrated speed over ``previous`` (entries that did not run are kept if in
    ``names``)."""
    keep = ("metrics", RUN_SPEED)
    entries = {n: e for n, e in (previous or {}).get("entries", {}).items() if names is None or n in names}
    entries.update({n: {k: e[k] for k in keep if e.get(k) is not None}
                    for n, e in results["entries"].items() if e.get("status") == "ok"})
    return {"suite": results["suite"], "machine": results["machine"], "entries": entries}


def machine_class() -> str:
    import jax

    return "gpu" if jax.default_backend() == "gpu" else "cpu"


def baseline_path(suite: str, folder: str = SUITES_DIR) -> str:
    """Where ``--check`` and ``--update-baseline`` look by default: ``<folder>/baselines/<cpu|gpu>/``, with
    ``folder`` the suite file's (a shipped suite's baselines are shipped beside it)."""
    return os.path.join(folder, "baselines", machine_class(), f"{suite}.json")
