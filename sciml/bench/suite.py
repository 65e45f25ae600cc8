"""Benchmark suites: ``sciml bench SUITE [--out DIR | --resume DIR] [--check [BASELINE.json]] [--update-baseline]
[--jobs N] [--no-plots]``.

A suite is a YAML file (shipped ones in ``cases/suites/``, named by :mod:`sciml.catalog`) listing entries;
each entry runs in a fresh process:

- ``case``: ``sciml run CASE overrides``, CASE a path or a name (``plate``); with ``datagen: true``,
  ``sciml datagen`` first, and before that, with ``prepare: [SCRIPT.py, args...]``, that script with the suite's
  Python (one that makes the case's ``data.file``); its ``summary.json`` gives the metrics, wall time, steps/s
  and compile time;
- ``sweep``: the same case for each value of one key (a convergence study: error against steps, points or
  resolution), plotted;
- ``study``: a function from :mod:`sciml.bench.studies` (observed orders of classical solvers,
  autodiff speed ratios) that returns metrics.

An entry names what it reads in three checked kinds (:data:`.baseline.RULES`): ``metrics`` are errors (lower is
better), ``speeds`` are rates or speed-ups (higher is better; a run's steps/s is always one), ``costs`` are
time ratios (lower is better); ``info`` is reported and never checked. ``curve`` reads several metrics of one
run as a curve (an FNO's test error at each resolution).

Results go to ``results.json``, ``report.md`` (:mod:`.report`: ours against the published values, then every
metric with its reference and the runs' times) and PNG plots. ``results.json`` is rewritten (atomically) as
each entry ends, so a suite killed midway loses only the entry that was running; ``--resume DIR`` continues
the suite run whose results folder is ``DIR``: the entries that finished there (status ok) are kept, the
others run in order, the first of them continuing its run folder with ``sciml run --resume`` where a
checkpoint was left (else starting it afresh), and the report covers them all. A long suite can thus span
several sessions. ``--check`` compares against a baseline (``baselines/<cpu|gpu>/<suite>.json``
beside the suite file by default): an error above ``baseline * (1 + tolerance.error)``, a speed below
``baseline * (1 - tolerance.speed)`` or a cost above ``baseline / (1 - tolerance.speed)`` fails, naming the
entry and metric. ``--update-baseline`` writes this run's values into that file (entries not run are kept).
``--no-plots``: the entries' processes write no figures (``SCIML_PLOTS=off`` in the environment they inherit;
their figures are not even built, their numbers the same), the report draws its own as always: CI's smoke phase
runs so (its entries wrote 93 PNGs, about 0.4 s of CPU each, that nobody reads there). ``--jobs N`` runs N
entries at a time, each process of the pool (and the runs it starts) on a share of the cores of its own
(:mod:`sciml.cores`; their compiled programs kept apart from those of processes on every core,
:func:`sciml.compile.cache_setting`): on the 2-core CPU the smoke phase took 339 → 323 s and 350 → 334 s pinned
so, in two A/B pairs, each on cold caches.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import time

from .. import cores
from ..catalog import suite_path
from ..config import read_yaml, validate
from ..errors import BadFile, UserError
from ..io import checkpoint
from ..io.atomic import write_json
from . import calibration
from .baseline import baseline_of, baseline_path, check, checked, value
from .schema import Entry, Suite


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


def _subprocess(argv: list[str], timeout: float | None, log: str) -> tuple[int, float, float]:
    """Run ``argv`` (killed after ``timeout`` seconds, if given); return (exit code, wall seconds, the child's own
    peak resident MiB, from ``wait4``)."""
    import threading

    t0 = time.perf_counter()
    with open(log, "a", encoding="utf-8") as fh:  # appended to: a resumed entry keeps what its first try printed
        proc = subprocess.Popen(argv, stdout=fh, stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, proc.kill) if timeout is not None else None
        if timer is not None:
            timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            if timer is not None:
                timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    code = 124 if proc.returncode == -9 else proc.returncode
    return code, time.perf_counter() - t0, usage.ru_maxrss / 1024.0


def _sciml(*args: str) -> list[str]:
    return [sys.executable, "-m", "sciml", *args]


def run_case(entry: Entry, overrides: list[str], out: str, resume: bool = False) -> dict:
    """The entry's ``prepare`` script and ``sciml datagen`` (if asked), then ``sciml run`` with the calibration
    workload timed right before and after it (:func:`.calibration.around`), so that its steps/s is also known as
    ``steps_per_calib``. With ``resume`` the run continues from the checkpoint an earlier try left in ``out``
    (``sciml run --resume``), or starts afresh there (``--force``) if there is none."""
    if entry.case is None:
        raise UserError(f"entry {entry.name}: no case to run")
    case = entry.case
    os.makedirs(out, exist_ok=True)
    log = out + ".output.txt"  # what the processes printed, beside the run folder (which holds only the run)
    before = {}  # the seconds of what ran before the run: the prepare script, the datagen
    if entry.prepare:
        code, wall, _ = _subprocess([sys.executable, *entry.prepare], entry.timeout_s, log + ".prepare")
        if code:
            return {"status": "failed", "error": f"{entry.prepare[0]} exited {code}; see {log}.prepare",
                    "prepare_s": wall}
        before["prepare_s"] = wall
    if entry.datagen:
        command = _sciml("datagen", case, *overrides, "--quiet", "--workers", str(entry.workers))
        code, wall, _ = _subprocess(command, entry.timeout_s, log + ".datagen")
        if code:
            return {"status": "failed", "error": f"datagen exited {code}; see {log}.datagen", "datagen_s": wall,
                    **before}
        before["datagen_s"] = wall

    def train() -> dict:
        continued = resume and checkpoint.exists(os.path.join(out, "checkpoints", "latest.h5"))
        command = (_sciml("run", "--resume", out, "--quiet") if continued else
                   _sciml("run", case, *overrides, "--out", out, "--quiet", *(["--force"] if resume else [])))
        code, wall, peak = _subprocess(command, entry.timeout_s, log)
        if code:
            return {"status": "failed", "error": f"exited {code}; see {log}", "wall_time_s": wall, **before}
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as fh:
            s = json.load(fh)
        return {"status": "ok", "metrics": s.get("metrics", {}), "wall_time_s": wall, "peak_mem_mib": peak,
                "steps_per_s": s.get("steps_per_s"), "steps_per_cpu_s": s.get("steps_per_cpu_s"),
                "compile_time_s": s.get("compile_time_s"), "run_dir": out, "training_s": s.get("wall_time_s"),
                **({"last_k": s["last_k"]} if "last_k" in s else {}), **({"resumed": True} if continued else {}),
                **before}

    return calibration.around(train)


def run_study(entry: Entry, out: str) -> dict:
    os.makedirs(out, exist_ok=True)
    if entry.study is None:
        raise UserError(f"entry {entry.name}: no study to run")
    argv = [sys.executable, "-m", "sciml.bench.studies", entry.study, "--out", out, "--args", json.dumps(entry.args)]
    code, wall, peak = _subprocess(argv, entry.timeout_s, os.path.join(out, "log.txt"))
    if code:
        return {"status": "failed", "error": f"study exited {code}; see {out}/log.txt", "wall_time_s": wall}
    with open(os.path.join(out, "result.json"), encoding="utf-8") as fh:
        r = json.load(fh)
    return {"status": "ok", "wall_time_s": wall, "peak_mem_mib": peak, **r}


def run_entry(entry: Entry, out: str, log=print, resume: bool = False) -> dict:
    """Run ``entry`` into ``out/<name>`` (``resume``: its runs continue from what an earlier try left there)."""
    folder = os.path.join(out, entry.name)
    if entry.study:
        return run_study(entry, folder)
    if entry.sweep is None:
        return run_case(entry, entry.overrides, folder, resume)
    points = []
    for v in entry.sweep.values:
        value = json.dumps(v)
        setting = f"{entry.sweep.key}={value}"
        r = run_case(entry, [*entry.overrides, setting], os.path.join(folder, setting), resume)
        log(f"  {entry.sweep.key}={value}: {r['status']} {({k: r.get('metrics', {}).get(k) for k in entry.metrics})}")
        points.append({"value": v, **r})
    ok = [p for p in points if p["status"] == "ok"]
    last = ok[-1] if ok else {}
    return {"status": "ok" if len(ok) == len(points) else "failed", "sweep": {"key": entry.sweep.key, "points": points},
            "metrics": last.get("metrics", {}), "wall_time_s": sum(p.get("wall_time_s", 0) for p in points),
            "steps_per_s": last.get("steps_per_s"), "steps_per_calib": last.get("steps_per_calib"),
            "calibration": last.get("calibration"), "compile_time_s": last.get("compile_time_s"),
            "last_k": last.get("last_k"),
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


def fresh(suite: Suite, path: str) -> dict:
    """The results of a suite run before any entry has run."""
    return {"suite": suite.suite, "file": path, "machine": machine(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
            "entries": {}}


@contextlib.contextmanager
def entries_plots(on: bool):
    """Within it the processes started for the entries write their figures (``on``) or none (``SCIML_PLOTS=off``
    in the environment they inherit, :mod:`sciml.plots`); the environment as it was after it."""
    from .. import plots  # matplotlib: loaded when a suite runs

    was = os.environ.get(plots.ENV)
    if not on:
        os.environ[plots.ENV] = "off"
    try:
        yield
    finally:
        if was is None:
            os.environ.pop(plots.ENV, None)
        else:
            os.environ[plots.ENV] = was


def run_all(suite: Suite, entries: list[Entry], path: str, out: str, previous: dict | None = None,
            jobs: int = 1) -> dict:
    """Run ``entries``, rewriting ``results.json`` as each ends; with ``previous`` (the results of an earlier try
    in ``out``, :func:`previous_results`), only those that did not finish there, continuing their runs. ``jobs``:
    how many run at once (each in a process of its own, on a share of the cores of its own, :func:`alone` ones by
    themselves after the others)."""
    results = previous if previous is not None else fresh(suite, path)
    done, before = results["entries"], results.get("wall_time_s", 0.0)
    kept = [e.name for e in entries if done.get(e.name, {}).get("status") == "ok"]
    todo = [e for e in entries if e.name not in kept]
    if previous is not None:
        results.setdefault("resumed", []).append({"at": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine()})
        print(f"resuming {out}: {len(kept)} of {len(entries)} entries finished there"
              + (f" ({', '.join(kept)})" if kept else "") + f"; {len(todo)} to run", flush=True)
    t0 = time.perf_counter()
    order = [e.name for e in suite.entries]
    counter = iter(range(1, len(todo) + 1))

    def finished(entry: Entry, r: dict) -> None:
        done[entry.name] = r
        results["entries"] = dict(sorted(done.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 0))
        shown = {m: value(r, m) for _, m in checked(entry)}
        print(f"[{next(counter)}/{len(todo)}] {entry.name}: {r['status']} in {r.get('wall_time_s', 0):.1f} s: "
              + ", ".join(f"{k} {v:.4g}" for k, v in shown.items() if isinstance(v, (int, float)))
              + (f" ({r['error']})" if r.get("error") else ""), flush=True)
        results["wall_time_s"] = before + time.perf_counter() - t0
        write_json(os.path.join(out, "results.json"), results)

    resume = previous is not None
    together = [e for e in todo if jobs > 1 and not alone(e)]
    if together:
        import concurrent.futures
        import multiprocessing

        print(f"{len(together)} entries {jobs} at a time, then {len(todo) - len(together)} alone", flush=True)
        ctx = multiprocessing.get_context("spawn")
        shares = ctx.Queue()  # each process of the pool on a share of the cores of its own (sciml.cores)
        for k in range(jobs):
            shares.put(k)
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx, initializer=cores.take_from,
                                                    initargs=(shares, jobs)) as pool:
            running = {pool.submit(run_entry, e, out, print, resume): e for e in together}
            for f in concurrent.futures.as_completed(running):
                finished(running[f], f.result())
    for entry in todo:
        if entry not in together:
            print(f"{entry.name} ...", flush=True)
            finished(entry, run_entry(entry, out, resume=resume))
    results["wall_time_s"] = before + time.perf_counter() - t0
    write_json(os.path.join(out, "results.json"), results)
    return results


def alone(entry: Entry) -> bool:
    """Whether ``entry`` must run with nothing else running: a study that checks speeds or costs it times in its
    own process (the engine against nested JAX), which another process's load comes and goes through. A case's
    steps/s is checked against the calibration timed in CPU seconds around it (:mod:`.calibration`), which
    holds on a busy machine: those entries may share it. An entry's ``alone`` says otherwise where measured."""
    if entry.alone is not None:
        return entry.alone
    return entry.study is not None and bool(entry.speeds or entry.costs)


def previous_results(folder: str, suite: Suite, suite_file: str) -> dict:
    """The results of the suite run in ``folder`` to resume (:func:`fresh` ones when it wrote none: no entry
    finished there)."""
    if not os.path.isdir(folder):
        raise UserError(f"{folder}: no such results folder to resume")
    path = os.path.join(folder, "results.json")
    if not os.path.exists(path):
        return fresh(suite, suite_file)
    try:
        results = _read_json(path)
        name = results["suite"]
        if not isinstance(results["entries"], dict):
            raise TypeError("its entries are not a mapping")
    except (ValueError, UnicodeDecodeError, KeyError, TypeError) as e:
        raise BadFile(f"{path}: damaged results file ({type(e).__name__}: {e})") from None
    if name != suite.suite:
        raise UserError(f"{path}: holds results of suite {name!r}, not {suite.suite!r}; resume it with "
                        f"sciml bench {name} --resume {folder}")
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
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", help="results folder (default runs/bench/<suite>/<timestamp>)")
    where.add_argument("--resume", metavar="DIR", help="continue the suite run in results folder DIR: entries "
                                                       "finished there are kept, the others run (an unfinished run "
                                                       "continues from its checkpoint); the report covers all")
    p.add_argument("--check", nargs="?", const="auto", metavar="BASELINE.json",
                   help="fail when an error, speed or cost is worse than the baseline by more than the tolerance "
                        "(default baseline: baselines/<cpu|gpu>/<suite>.json beside the suite file)")
    p.add_argument("--update-baseline", action="store_true", help="write the results as the new baseline")
    p.add_argument("--only", help="comma-separated entry names")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="entries run N at a time, each in its own process on a share of the cores of its own (a "
                        "study that times speed-ups in its own process runs alone, after them); CI runs the smoke "
                        "suite with 2")
    p.add_argument("--no-plots", action="store_true",
                   help="the entries' runs write no figures (numbers, fields and checkpoints as always); the "
                        "report draws its own; CI's smoke phase runs so")
    args = p.parse_args(argv)
    from . import report  # matplotlib: loaded when a suite runs

    suite, path = load_suite(args.suite)
    entries = _select(suite, path, args.only)
    base_path = baseline_path(suite.suite, os.path.dirname(path))
    check_path = base_path if args.check == "auto" else args.check
    if check_path and not os.path.isfile(check_path):
        raise UserError(f"{check_path}: no baseline; make one with: sciml bench {args.suite} --update-baseline")
    previous = previous_results(args.resume, suite, path) if args.resume else None
    out = args.resume or args.out or os.path.join("runs", "bench", suite.suite, time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    if args.jobs < 1:
        raise UserError(f"--jobs {args.jobs}: give 1 or more")
    with entries_plots(not args.no_plots):
        results = run_all(suite, entries, path, out, previous, args.jobs)
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
