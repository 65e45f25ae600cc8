"""Benchmark suites: ``sciml bench SUITE [--out DIR] [--check [BASELINE.json]] [--update-baseline]``.

A suite is a YAML file under ``cases/suites/`` listing entries; each entry runs in a fresh process:

- ``case``: ``sciml run CASE overrides`` (with ``datagen: true``, ``sciml datagen`` first); its
  ``summary.json`` gives the metrics, wall time, steps/s and compile time;
- ``sweep``: the same case for each value of one key (a convergence study: error against steps, points or
  resolution), plotted;
- ``study``: a function from :mod:`sciml.bench.studies` (observed orders of classical solvers,
  autodiff timings) that returns metrics.

Results go to ``results.json``, ``report.md`` (one table per suite: entry, metric, ours, reference and its
source, ratio) and PNG plots. ``--check`` compares against a baseline (``cases/suites/baselines/<cpu|gpu>/
<suite>.json`` by default): an error above ``baseline * (1 + tolerance.error)`` or a speed below
``baseline * (1 - tolerance.speed)`` fails, naming the entry and metric.
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
from ..errors import UserError
from ..io.atomic import write_json, write_text

SUITES_DIR = os.path.join("cases", "suites")


@dataclass
class Reference:
    value: float
    source: str = ""


@dataclass
class Sweep:
    key: str = spec(help="dotted key to vary")
    values: list[Any] = spec(help="values of the key")


@dataclass
class Entry:
    name: str
    case: str | None = None
    overrides: list[str] = spec(factory=list)
    datagen: bool = False
    sweep: Sweep | None = None
    study: str | None = spec(None, help="function name in sciml.bench.studies")
    args: dict[str, Any] = spec(factory=dict, help="keyword arguments of the study")
    metrics: list[str] = spec(factory=list, help="errors to report and check (lower is better)")
    info: list[str] = spec(factory=list, help="metrics to report without a check (e.g. observed orders)")
    references: dict[str, Reference] = spec(factory=dict, help="published values to show next to ours")
    timeout_s: float = spec(1800.0, gt=0)

    def check(self):
        from ..errors import Invalid
        if (self.case is None) == (self.study is None):
            raise Invalid("case", "give exactly one of case or study")


@dataclass
class Tolerance:
    error: float = spec(0.25, ge=0.0, help="relative growth of an error allowed over the baseline")
    speed: float = spec(0.5, ge=0.0, lt=1.0, help="relative drop of steps/s allowed under the baseline")


@dataclass
class Suite:
    suite: str
    description: str = ""
    tolerance: Tolerance = field(default_factory=Tolerance)
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


def machine_class() -> str:
    import jax

    return "gpu" if jax.default_backend() == "gpu" else "cpu"


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
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "log.txt")
    if entry.datagen:
        code, _, _ = _subprocess(_sciml("datagen", entry.case, *overrides, "--quiet"), entry.timeout_s, log + ".datagen")
        if code:
            return {"status": "failed", "error": f"datagen exited {code}; see {log}.datagen"}
    code, wall, peak = _subprocess(_sciml("run", entry.case, *overrides, "--out", out, "--quiet"), entry.timeout_s, log)
    if code:
        return {"status": "failed", "error": f"exited {code}; see {log}", "wall_time_s": wall}
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as fh:
        s = json.load(fh)
    return {"status": "ok", "metrics": s.get("metrics", {}), "wall_time_s": wall, "peak_mem_mib": peak,
            "steps_per_s": s.get("steps_per_s"), "compile_time_s": s.get("compile_time_s"), "run_dir": out}


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
            "steps_per_s": last.get("steps_per_s"), "compile_time_s": last.get("compile_time_s"),
            "peak_mem_mib": max((p.get("peak_mem_mib", 0) for p in ok), default=0)}


def check(suite: Suite, results: dict, baseline: dict) -> list[str]:
    """Problems of ``results`` against ``baseline`` (empty when all is well)."""
    problems = []
    for entry in suite.entries:
        r, b = results["entries"].get(entry.name, {}), baseline.get("entries", {}).get(entry.name)
        if r.get("status") != "ok":
            problems.append(f"{entry.name}: {r.get('error', 'did not run')}")
            continue
        if b is None:
            problems.append(f"{entry.name}: no baseline (run with --update-baseline)")
            continue
        for m in entry.metrics:
            ours, base = r.get("metrics", {}).get(m), b.get("metrics", {}).get(m)
            if ours is None:
                problems.append(f"{entry.name}: metric {m} missing from the results")
            elif base is not None and not ours <= base * (1 + suite.tolerance.error):
                problems.append(f"{entry.name}: {m} = {ours:.4g} exceeds the baseline {base:.4g} "
                                f"by more than {suite.tolerance.error:.0%}")
        ours, base = r.get("steps_per_s"), b.get("steps_per_s")
        if ours and base and ours < base * (1 - suite.tolerance.speed):
            problems.append(f"{entry.name}: {ours:.3g} steps/s is more than {suite.tolerance.speed:.0%} "
                            f"below the baseline {base:.3g}")
    return problems


def baseline_of(results: dict) -> dict:
    keep = ("metrics", "steps_per_s")
    return {"suite": results["suite"], "machine": results["machine"],
            "entries": {n: {k: e[k] for k in keep if e.get(k) is not None}
                        for n, e in results["entries"].items() if e.get("status") == "ok"}}


def load_suite(name: str) -> tuple[Suite, str]:
    path = name if name.endswith((".yaml", ".yml")) else os.path.join(SUITES_DIR, f"{name}.yaml")
    if not os.path.isfile(path):
        have = sorted(f[:-5] for f in os.listdir(SUITES_DIR) if f.endswith(".yaml")) if os.path.isdir(SUITES_DIR) else []
        raise UserError(f"{path}: no such suite; suites here: {', '.join(have) or 'none'}")
    return validate(Suite, read_yaml(path), path), path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="sciml bench", description="Run a benchmark suite and report it.")
    p.add_argument("suite", help="name under cases/suites/ (smoke, standard, autodiff) or a YAML path")
    p.add_argument("--out", help="results folder (default runs/bench/<suite>/<timestamp>)")
    p.add_argument("--check", nargs="?", const="auto", metavar="BASELINE.json",
                   help="fail when an error or a speed is worse than the baseline by more than the tolerance")
    p.add_argument("--update-baseline", action="store_true", help="write the results as the new baseline")
    p.add_argument("--only", help="comma-separated entry names")
    args = p.parse_args(argv)
    from . import report

    suite, path = load_suite(args.suite)
    out = args.out or os.path.join("runs", "bench", suite.suite, time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    entries = [e for e in suite.entries if not args.only or e.name in args.only.split(",")]
    results = {"suite": suite.suite, "file": path, "machine": machine(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
               "entries": {}}
    t0 = time.perf_counter()
    for i, entry in enumerate(entries, 1):
        print(f"[{i}/{len(entries)}] {entry.name}", flush=True)
        r = run_entry(entry, out)
        results["entries"][entry.name] = r
        shown = {m: r.get("metrics", {}).get(m) for m in entry.metrics}
        print(f"  {r['status']} in {r.get('wall_time_s', 0):.1f} s: "
              + ", ".join(f"{k} {v:.4g}" if isinstance(v, (int, float)) else f"{k} {v}" for k, v in shown.items())
              + (f" ({r['error']})" if r.get("error") else ""), flush=True)
        write_json(os.path.join(out, "results.json"), results)
    results["wall_time_s"] = time.perf_counter() - t0
    write_json(os.path.join(out, "results.json"), results)
    report.write(suite, results, out)
    print(f"report: {os.path.join(out, 'report.md')}")

    base_path = os.path.join(SUITES_DIR, "baselines", machine_class(), f"{suite.suite}.json")
    if args.update_baseline:
        write_json(base_path, baseline_of(results))
        print(f"baseline written: {base_path}")
    failed = [n for n, r in results["entries"].items() if r.get("status") != "ok"]
    if args.check:
        bpath = base_path if args.check == "auto" else args.check
        if not os.path.isfile(bpath):
            raise UserError(f"{bpath}: no baseline; make one with: sciml bench {args.suite} --update-baseline")
        with open(bpath, encoding="utf-8") as fh:
            problems = check(suite, results, json.load(fh))
        for prob in problems:
            print(f"CHECK FAILED: {prob}")
        print(f"check against {bpath}: {'FAILED' if problems else 'passed'}")
        return 1 if problems else 0
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
