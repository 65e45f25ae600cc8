"""Benchmark suites: ``sciml bench SUITE [--out DIR] [--check [BASELINE.json]] [--update-baseline]``.

A suite is a YAML file (shipped ones in ``cases/suites/``, named by :mod:`sciml.catalog`) listing entries;
each entry runs in a fresh process:

- ``case``: ``sciml run CASE overrides``, CASE a path or a name (``plate``); with ``datagen: true``,
  ``sciml datagen`` first; its ``summary.json`` gives the metrics, wall time, steps/s and compile time;
- ``sweep``: the same case for each value of one key (a convergence study: error against steps, points or
  resolution), plotted;
- ``study``: a function from :mod:`sciml.bench.studies` (observed orders of classical solvers,
  autodiff speed ratios) that returns metrics.

An entry names what it reads in three checked kinds (:data:`.baseline.RULES`): ``metrics`` are errors (lower is
better), ``speeds`` are rates or speed-ups (higher is better; a run's steps/s is always one), ``costs`` are
time ratios (lower is better); ``info`` is reported and never checked. ``curve`` reads several metrics of one
run as a curve (an FNO's test error at each resolution).

Results go to ``results.json``, ``report.md`` (one table per suite: entry, metric, ours, reference and its
source, ratio) and PNG plots. ``--check`` compares against a baseline (``baselines/<cpu|gpu>/<suite>.json``
beside the suite file by default): an error above ``baseline * (1 + tolerance.error)``, a speed below
``baseline * (1 - tolerance.speed)`` or a cost above ``baseline / (1 - tolerance.speed)`` fails, naming the
entry and metric. ``--update-baseline`` writes this run's values into that file (entries not run are kept).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from ..config import read_yaml, spec, validate
from ..catalog import suite_path
from ..errors import UserError
from ..io.atomic import write_json
from . import calibration
from .baseline import baseline_of, baseline_path, check, checked, value


@dataclass
class Reference:
    value: float
    source: str = ""


@dataclass
class Sweep:
    key: str = spec(help="dotted key to vary")
    values: list[Any] = spec(help="values of the key")


@dataclass
class Curve:
    """Metrics of one run read as a curve: ``points`` maps each metric to its abscissa."""
    x: str = spec(help="axis label, e.g. 'test resolution s (trained at 85)'")
    points: dict[str, float] = spec(help="metric -> abscissa")


@dataclass
class Entry:
    name: str
    case: str | None = None
    overrides: list[str] = spec(factory=list)
    datagen: bool = False
    workers: int = spec(1, ge=1, help="processes of the datagen (sciml datagen --workers), for CPU solvers")
    sweep: Sweep | None = None
    study: str | None = spec(None, help="function name in sciml.bench.studies")
    args: dict[str, Any] = spec(factory=dict, help="keyword arguments of the study")
    metrics: list[str] = spec(factory=list, help="errors to report and check (lower is better)")
    speeds: list[str] = spec(factory=list, help="speeds or speed-ups to report and check (higher is better)")
    costs: list[str] = spec(factory=list, help="time ratios to report and check (lower is better)")
    info: list[str] = spec(factory=list, help="metrics to report without a check (e.g. observed orders)")
    references: dict[str, Reference | list[Reference]] = spec(factory=dict,
                                                              help="published values to show next to ours")
    curve: Curve | None = None
    timeout_s: float | None = spec(None, gt=0, help="per process (default: the suite's)")

    def check(self):
        from ..errors import Invalid
        if (self.case is None) == (self.study is None):
            raise Invalid("case", "give exactly one of case or study")

    def refs(self, metric: str) -> list[Reference]:
        r = self.references.get(metric, [])
        return r if isinstance(r, list) else [r]


@dataclass
class Tolerance:
    error: float = spec(0.25, ge=0.0, help="relative growth of an error allowed over the baseline")
    speed: float = spec(0.5, ge=0.0, lt=1.0, help="relative drop of a speed allowed under the baseline")


@dataclass
class Suite:
    suite: str
    description: str = ""
    tolerance: Tolerance = field(default_factory=Tolerance)
    timeout_s: float = spec(1800.0, gt=0, help="default time limit of each process an entry starts")
    entries: list[Entry] = spec(factory=list)


def machine() -> dict:
    import jax

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((l.split(":", 1)[1].strip() for l in fh if l.startswith("model name")), cpu)
    except OSError:
        pass
    dev = jax.devices()[0]
    return {"cpu": cpu, "cores": os.cpu_count(), "device": dev.device_kind, "backend": jax.default_backend(),
            "jax": jax.__version__, "python": platform.python_version()}


def _subprocess(argv: list[str], timeout: float, log: str) -> tuple[int, float, float]:
    """Run ``argv``; return (exit code, wall seconds, the child's own peak resident MiB, from ``wait4``)."""
    import threading

    t0 = time.perf_counter()
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.Popen(argv, stdout=fh, stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    code = 124 if proc.returncode == -9 else proc.returncode
    return code, time.perf_counter() - t0, usage.ru_maxrss / 1024.0


def _sciml(*args: str) -> list[str]:
    return [sys.executable, "-m", "sciml", *args]


def run_case(entry: Entry, overrides: list[str], out: str) -> dict:
    """``sciml datagen`` (if asked), then ``sciml run`` with the calibration workload timed right before and after
    it (:func:`.calibration.around`), so that its steps/s is also known as ``steps_per_calib``."""
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "log.txt")
    datagen = {}
    if entry.datagen:
        code, wall, _ = _subprocess(_sciml("datagen", entry.case, *overrides, "--quiet", "--workers", str(entry.workers)),
                                    entry.timeout_s, log + ".datagen")
        if code:
            return {"status": "failed", "error": f"datagen exited {code}; see {log}.datagen", "datagen_s": wall}
        datagen = {"datagen_s": wall}

    def train() -> dict:
        code, wall, peak = _subprocess(_sciml("run", entry.case, *overrides, "--out", out, "--quiet"), entry.timeout_s, log)
        if code:
            return {"status": "failed", "error": f"exited {code}; see {log}", "wall_time_s": wall, **datagen}
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as fh:
            s = json.load(fh)
        return {"status": "ok", "metrics": s.get("metrics", {}), "wall_time_s": wall, "peak_mem_mib": peak,
                "steps_per_s": s.get("steps_per_s"), "steps_per_cpu_s": s.get("steps_per_cpu_s"),
                "compile_time_s": s.get("compile_time_s"), "run_dir": out,
                **datagen}

    return calibration.around(train)


def run_study(entry: Entry, out: str) -> dict:
    os.makedirs(out, exist_ok=True)
    argv = [sys.executable, "-m", "sciml.bench.studies", entry.study, "--out", out, "--args", json.dumps(entry.args)]
    code, wall, peak = _subprocess(argv, entry.timeout_s, os.path.join(out, "log.txt"))
    if code:
        return {"status": "failed", "error": f"study exited {code}; see {out}/log.txt", "wall_time_s": wall}
    with open(os.path.join(out, "result.json"), encoding="utf-8") as fh:
        r = json.load(fh)
    return {"status": "ok", "wall_time_s": wall, "peak_mem_mib": peak, **r}


def run_entry(entry: Entry, out: str, log=print) -> dict:
    folder = os.path.join(out, entry.name)
    if entry.study:
        return run_study(entry, folder)
    if entry.sweep is None:
        return run_case(entry, entry.overrides, folder)
    points = []
    for v in entry.sweep.values:
        value = json.dumps(v)
        r = run_case(entry, [*entry.overrides, f"{entry.sweep.key}={value}"], os.path.join(folder, f"{entry.sweep.key}={value}"))
        log(f"  {entry.sweep.key}={value}: {r['status']} {({k: r.get('metrics', {}).get(k) for k in entry.metrics})}")
        points.append({"value": v, **r})
    ok = [p for p in points if p["status"] == "ok"]
    last = ok[-1] if ok else {}
    return {"status": "ok" if len(ok) == len(points) else "failed", "sweep": {"key": entry.sweep.key, "points": points},
            "metrics": last.get("metrics", {}), "wall_time_s": sum(p.get("wall_time_s", 0) for p in points),
            "steps_per_s": last.get("steps_per_s"), "steps_per_calib": last.get("steps_per_calib"),
            "calibration": last.get("calibration"), "compile_time_s": last.get("compile_time_s"),
            "peak_mem_mib": max((p.get("peak_mem_mib", 0) for p in ok), default=0)}


def load_suite(name: str) -> tuple[Suite, str]:
    """A suite by path or name (:func:`sciml.catalog.suite_path`: ``smoke`` is ``cases/suites/smoke.yaml`` of
    the working directory if there is one, else the shipped one) and the path it was read from."""
    path = suite_path(name)
    suite = validate(Suite, read_yaml(path), path)
    for e in suite.entries:
        e.timeout_s = e.timeout_s or suite.timeout_s
    return suite, path


def _read_json(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def run_all(suite: Suite, entries: list[Entry], path: str, out: str) -> dict:
    """Run ``entries`` one after the other, rewriting ``results.json`` after each."""
    results = {"suite": suite.suite, "file": path, "machine": machine(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
               "entries": {}}
    t0 = time.perf_counter()
    for i, entry in enumerate(entries, 1):
        print(f"[{i}/{len(entries)}] {entry.name}", flush=True)
        r = run_entry(entry, out)
        results["entries"][entry.name] = r
        shown = {m: value(r, m) for _, m in checked(entry)}
        print(f"  {r['status']} in {r.get('wall_time_s', 0):.1f} s: "
              + ", ".join(f"{k} {v:.4g}" for k, v in shown.items() if isinstance(v, (int, float)))
              + (f" ({r['error']})" if r.get("error") else ""), flush=True)
        write_json(os.path.join(out, "results.json"), results)
    results["wall_time_s"] = time.perf_counter() - t0
    write_json(os.path.join(out, "results.json"), results)
    return results


def _select(suite: Suite, path: str, only: str | None) -> list[Entry]:
    names = only.split(",") if only else [e.name for e in suite.entries]
    unknown = set(names) - {e.name for e in suite.entries}
    if unknown:
        raise UserError(f"{path}: no entry {', '.join(sorted(unknown))}; entries: "
                        f"{', '.join(e.name for e in suite.entries)}")
    return [e for e in suite.entries if e.name in names]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="sciml bench", description="Run a benchmark suite and report it.")
    p.add_argument("suite", help="a suite's name (smoke, standard, autodiff: sciml cases lists them) or a YAML path")
    p.add_argument("--out", help="results folder (default runs/bench/<suite>/<timestamp>)")
    p.add_argument("--check", nargs="?", const="auto", metavar="BASELINE.json",
                   help="fail when an error, speed or cost is worse than the baseline by more than the tolerance "
                        "(default baseline: baselines/<cpu|gpu>/<suite>.json beside the suite file)")
    p.add_argument("--update-baseline", action="store_true", help="write the results as the new baseline")
    p.add_argument("--only", help="comma-separated entry names")
    args = p.parse_args(argv)
    from . import report

    suite, path = load_suite(args.suite)
    entries = _select(suite, path, args.only)
    base_path = baseline_path(suite.suite, os.path.dirname(path))
    check_path = base_path if args.check == "auto" else args.check
    if check_path and not os.path.isfile(check_path):
        raise UserError(f"{check_path}: no baseline; make one with: sciml bench {args.suite} --update-baseline")
    out = args.out or os.path.join("runs", "bench", suite.suite, time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    results = run_all(suite, entries, path, out)
    report.write(suite, results, out)
    print(f"report: {os.path.join(out, 'report.md')}")

    if args.update_baseline:
        previous = _read_json(base_path) if os.path.isfile(base_path) else None
        write_json(base_path, baseline_of(results, previous, {e.name for e in suite.entries}))
        print(f"baseline written: {base_path}")
    failed = [n for n, r in results["entries"].items() if r.get("status") != "ok"]
    if check_path:
        problems = check(suite, results, _read_json(check_path))
        for prob in problems:
            print(f"CHECK FAILED: {prob}")
        print(f"check against {check_path}: {'FAILED' if problems else 'passed'}")
        return 1 if problems else 0
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
