"""The training loop every solver runs: run folder, metrics, checkpoints, divergence, resume, stop, summary.

A solver's driver implements :class:`Driver`: how to make a state, how to advance it by one *chunk* (the PINN:
a jitted chunk of optimizer steps; the FNO: an epoch of minibatches) and how to evaluate it at the end.
:func:`run` does the rest, the same way for every solver:

1. ``config.yaml`` in the run folder; the state fresh from ``driver.init()`` or, with ``resume``, restored
   from the folder's ``checkpoints/latest.h5`` into ``driver.template(attrs)`` (the metrics rows up to its
   step are kept);
2. ``driver.advance(state, run)`` until it returns None. After each chunk: if any loss in it is NaN or inf,
   the state *before* the chunk is written as ``latest`` and :class:`~sciml.errors.TrainingDiverged` names the
   exact step; else its metrics row is written (``metrics.csv``), the progress bar moves, and ``latest`` is
   written when the driver says it is due, and when training ends or stops;
3. ``driver.finish`` (the final evaluation, its files), ``summary.json`` and a one-line summary (on the
   console unless ``quiet``).

**The trained model** of a run is the state it ends with: the one ``driver.finish`` evaluates, the summary
scores and ``fields.h5`` holds. Beside every ``latest`` the loop writes ``model``, that state without its
optimizer (``state["opt"]``: the parameters or their averages, the statistics, the step, the stage), which
``sciml export``, ``sciml predict`` and ``sciml.load_run`` read (:func:`sciml.io.checkpoint.trained`). Not the
state of the lowest loss: the losses of a curriculum's stages, of time windows, of resampled points or of
adaptive weights measure different problems, and a Re 1000 cavity exported its Re 100 stage that way. ``latest``
keeps its version before as ``latest.prev`` without the optimizer's state when that holds an array of over
:data:`ALONE_BYTES` (the dense BFGS matrix; :func:`sciml.io.checkpoint.save`), so the largest state is stored
once; a resume from a checkpoint
that leaves any of the optimizer out (that ``.prev``, or ``model`` copied to ``latest``) starts the optimizer
afresh from its parameters, and says so.

``log.txt`` in the run folder holds what the run printed and every warning it raised
(:func:`sciml.rundir.logging_to`, for the whole call); while a chunk compiles, the progress bar reads
"compiling…" and the log notes it and how long it took.

Checkpoints are gathered on every process (a collective, when a state is sharded across processes) and
written by process 0 only, atomically (:mod:`sciml.io.checkpoint`); so are all run files.

**Stopping.** On SIGTERM (what SLURM and Kubernetes send before killing a job) or SIGINT (Ctrl-C) while
training, the current chunk finishes, ``latest`` and ``summary.json`` (``"status": "interrupted"``, no final
evaluation) are written, and :class:`~sciml.errors.Interrupted` is raised; the command line exits with
``128 + signal number`` (143 for SIGTERM, 130 for SIGINT) and ``sciml run --resume RUN`` continues exactly
where it stopped. A second signal acts at once: SIGTERM ends the process (its default action), SIGINT raises
``KeyboardInterrupt``. Under several processes a signal to any of them stops all after the same chunk. A run
that ends normally has ``"status": "completed"``.

**Times** in the summary: ``setup_time_s`` until the first chunk starts, ``compile_time_s`` what the driver
timed in ``run.compiling()``, ``wall_time_s`` from the first chunk on (plus the wall time a resumed run had
before), ``steps_per_s`` steps over wall time less compile time, unless the driver's summary gives its own.
"""
from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import jax
import numpy as np
from tqdm.auto import tqdm

from . import parallel, rundir, signals
from .config import to_dict
from .errors import Interrupted, TrainingDiverged, UserError, warn
from .io import checkpoint
from .io.atomic import write_json, write_yaml
from .rundir import Metrics

State = Any  # a pytree: parameters, optimizer state, counters, PRNG key
OPTIMIZER = "opt"  # the entry of a state (a dict) that only resuming needs, left out of the model
ALONE_BYTES = 1 << 26  # an optimizer with an array larger than this is stored in latest.h5 alone, not in its .prev


def _optimizer(name: str, array: np.ndarray) -> bool:
    return name.startswith(f"['{OPTIMIZER}']")


def _alone(state: State) -> Callable[[str, np.ndarray], bool] | None:
    """The leaves of ``state`` kept in ``latest.h5`` alone: its optimizer's, when one of them is over
    :data:`ALONE_BYTES` (module notes)."""
    heavy = isinstance(state, dict) and any(np.asarray(a).nbytes > ALONE_BYTES
                                            for a in jax.tree_util.tree_leaves(state.get(OPTIMIZER)))
    return _optimizer if heavy else None


def model(state: State) -> tuple[State, list[str]]:
    """``(the model part of state, the names of the leaves it leaves out)``: a dict state without its optimizer."""
    if isinstance(state, dict) and OPTIMIZER in state:
        return checkpoint.part(state, OPTIMIZER)
    return state, []


@dataclass
class Chunk:
    """What one :meth:`Driver.advance` did.

    ``state``: the state after the chunk. ``losses``: the loss of each of its steps, in order (checked for
    NaN/inf; if one is not finite, ``where(i)`` names step ``i`` and ``good`` the state before the chunk, for
    the message). ``row``: its metrics row, with at least ``step`` (steps done, the run's position) and
    ``loss``; None for a chunk that took no step (e.g. a new phase's fresh optimizer state). ``latest``: a
    ``latest`` checkpoint is due. ``postfix``: more for the progress bar.
    """

    state: State
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0))
    row: dict | None = None
    latest: bool = False
    where: Callable[[int], str] = lambda i: f"at step {i} of the chunk"
    good: str = ""
    postfix: dict = field(default_factory=dict)


class Driver(Protocol):
    """A solver's side of the loop. ``unit`` names what a step is on the progress bar; ``total`` is the number
    of steps of the whole run."""

    unit: str
    total: int

    def init(self) -> State:
        """A fresh state (host or device arrays)."""
        ...

    def template(self, attrs: dict) -> State:
        """A state of the structure of a checkpoint with attributes ``attrs`` (its values are replaced);
        :class:`~sciml.errors.UserError` if this case cannot continue from it."""
        ...

    def start(self, state: State, attrs: dict) -> tuple[State, int]:
        """``(state on the devices, steps done)`` for the state training starts from (``attrs``: those of its
        checkpoint, ``{}`` for a fresh one)."""
        ...

    def attrs(self) -> dict:
        """Checkpoint attributes of the current state (the last one handed in or out): e.g. ``step``."""
        ...

    def advance(self, state: State, run: Run) -> Chunk | None:
        """Train one chunk from ``state``; None when the run is complete."""
        ...

    def summary(self) -> dict:
        """The driver's own summary entries (also written for an interrupted run)."""
        ...

    def finish(self, state: State, run: Run, out: str | None) -> dict:
        """The final evaluation: summary entries, at least ``metrics``; files into run folder ``out`` (None on
        a process that writes nothing)."""
        ...


class Run:
    """What the loop lends a driver while it trains: the clock, compile timing, messages, progress, rows."""

    def __init__(self, bar, rows: list[dict], elapsed: float, log: rundir.Log):
        self._bar, self.rows, self._elapsed, self._log = bar, rows, elapsed, log
        self._t0, self._c0 = time.perf_counter(), time.process_time()
        self.compile_s, self.compile_cpu, self.ticked = 0.0, 0.0, 0

    def wall(self) -> float:
        """Seconds of training so far, including those of the run this one resumes."""
        return self._elapsed + time.perf_counter() - self._t0

    def cpu(self) -> float:
        """CPU seconds of this process (every thread) spent training in this call, compilation excluded: the
        measure the benchmark check divides by a calibration workload's (:mod:`sciml.bench.calibration`)."""
        return time.process_time() - self._c0 - self.compile_cpu

    @contextlib.contextmanager
    def compiling(self) -> Iterator[None]:
        """Time the block as compilation; the progress bar says "compiling…" meanwhile, the log notes it."""
        t, c = time.perf_counter(), time.process_time()
        self._bar.set_description_str("compiling…")
        self._log.line("compiling…")
        try:
            yield
        finally:
            dt = time.perf_counter() - t
            self.compile_s += dt
            self.compile_cpu += time.process_time() - c
            self._bar.set_description_str("")
            self._log.line(f"compiled in {dt:.1f} s")

    def write(self, text: str) -> None:
        """A line of output (standard output, so the log has it too) that keeps the progress bar intact."""
        self._bar.clear()
        print(text, flush=True)
        self._bar.refresh()

    def tick(self, n: int = 1) -> None:
        """Move the progress bar by ``n`` steps within a chunk (the loop moves it to the chunk's end)."""
        self.ticked += n
        self._bar.update(n)


def run(cfg, make: Callable[[], Driver], out: str, resume: str | None = None, quiet: bool = False) -> dict:
    """Train into run folder ``out`` the case ``cfg`` (a case dataclass: ``case``, ``seed``, ``dtype``) with the
    driver ``make()`` builds (its set-up is timed); ``resume``: the folder to continue. Returns the summary."""
    writer = parallel.is_writer()
    if writer:
        os.makedirs(out, exist_ok=True)
    with rundir.logging_to(out if writer else None) as log:
        log.line(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {cfg.case}" + (f", resuming {resume}" if resume else ""))
        summary = _train(cfg, make, out, resume, quiet, writer, log)
        (log.line if quiet else print)(headline(summary))
        return summary


def headline(summary: dict) -> str:
    """The summary in one line: case, status, steps, times, final metrics, run folder."""
    metrics = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                        for k, v in summary.get("metrics", {}).items())
    return (f"{summary['case']}: {summary['status']}, {summary['steps']} steps in {summary['wall_time_s']:.1f} s "
            f"(compiling {summary['compile_time_s']:.1f} s)" + (f"; {metrics}" if metrics else "")
            + f"; run folder {summary['run_dir']}")


def _train(cfg, make: Callable[[], Driver], out: str, resume: str | None, quiet: bool, writer: bool,
           log: rundir.Log) -> dict:
    t_setup = time.perf_counter()
    driver = make()
    path = lambda name: os.path.join(out, "checkpoints", f"{name}.h5")
    saved_at: int | None = None  # the step last written as latest (and model)

    def save(state: State, **attrs) -> None:
        """``latest`` and ``model`` (module notes)."""
        nonlocal saved_at
        host = parallel.to_host(state)  # on every process (a gather, if anything is sharded across them)
        if writer:
            attrs = {k: v for k, v in attrs.items() if v is not None}
            checkpoint.save(path("latest"), host, alone=_alone(host), **attrs)
            part, without = model(host)
            checkpoint.save(path("model"), part, without=without, **attrs)
        saved_at = attrs.get("step")

    if writer:
        write_yaml(os.path.join(out, "config.yaml"), to_dict(cfg))
        for sub in ("checkpoints", "plots"):
            os.makedirs(os.path.join(out, sub), exist_ok=True)
    state, attrs = _restore(driver, resume) if resume else (driver.init(), {})
    state, position = driver.start(state, attrs)
    rows = [r for r in Metrics.read(os.path.join(resume, "metrics.csv")) if r["step"] <= position] if resume else []
    metrics = Metrics(os.path.join(out, "metrics.csv"), rows)
    record = metrics.append if writer else metrics.rows.append
    started, stopped = position, 0
    saved_at = position if resume else None  # a resumed state is on disk already
    bar = tqdm(total=driver.total, initial=position, disable=quiet, unit=driver.unit, dynamic_ncols=True, leave=True,
               file=log.console)
    lent = Run(bar, metrics.rows, rows[-1]["wall_time_s"] if rows else 0.0, log)
    setup_s = time.perf_counter() - t_setup
    try:
        with _Stop() as stop:
            while True:
                before, lent.ticked = driver.attrs(), 0
                chunk = driver.advance(state, lent)
                if chunk is None:
                    break
                bad = np.flatnonzero(~np.isfinite(chunk.losses))
                if bad.size:
                    save(state, **before)
                    raise TrainingDiverged(f"loss became {chunk.losses[bad[0]]} {chunk.where(int(bad[0]))}; training "
                                           f"stopped. The last good state ({chunk.good}) is in {path('latest')}")
                state, row = chunk.state, chunk.row
                if row is None:
                    continue
                record(row)
                bar.update(row["step"] - position - lent.ticked)
                bar.set_postfix(loss=f"{row['loss']:.3e}", **chunk.postfix, refresh=False)
                position = row["step"]
                stopped = stop.requested()
                if chunk.latest or stopped:
                    save(state, **driver.attrs(), loss=row["loss"])
                if stopped:
                    break
    finally:
        bar.close()
    if saved_at != position:  # the state the run ends with is its model: always on disk
        save(state, **driver.attrs(), loss=metrics.rows[-1]["loss"] if metrics.rows else None)
    wall = lent.wall()
    summary = {
        "case": cfg.case, "status": "interrupted" if stopped else "completed", "steps": position,
        "wall_time_s": round(wall, 3),
        "steps_per_s": round(position / max(wall - lent.compile_s, 1e-9), 3) if position else 0.0,
        "steps_per_cpu_s": round((position - started) / max(lent.cpu(), 1e-9), 3) if position > started else 0.0,
        "compile_time_s": round(lent.compile_s, 3), "setup_time_s": round(setup_s, 3),
        "final_loss": metrics.rows[-1]["loss"] if metrics.rows else None, "metrics": {},
        "dtype": cfg.dtype, "seed": cfg.seed, "compile_cache": jax.config.jax_compilation_cache_dir,  # type: ignore[attr-defined]
        **driver.summary(), "run_dir": out,
    }
    if not stopped:
        summary.update(driver.finish(state, lent, out if writer else None))
    if writer:
        write_json(os.path.join(out, "summary.json"), summary)
    if stopped:
        raise Interrupted(f"stopped by {signal.Signals(stopped).name} at step {position}; the state is in "
                          f"{path('latest')}. Continue with: sciml run --resume {out}", stopped, summary)
    return summary


def _restore(driver: Driver, folder: str) -> tuple[State, dict]:
    """The state and attributes of ``folder``'s latest checkpoint, restored into the driver's template (with the
    template's fresh optimizer when the checkpoint leaves any of it out: module notes)."""
    latest, trained = (os.path.join(folder, "checkpoints", f"{n}.h5") for n in ("latest", "model"))
    if not checkpoint.exists(latest):
        if checkpoint.exists(trained):
            step = _attrs(trained).get("step")
            at = f", step {step}" if step is not None else ""
            raise UserError(f"{latest}: no checkpoint to resume from, but {trained} exists (the model{at}, without "
                            f"the optimizer's state); to continue from it, the optimizer starting afresh: "
                            f"cp {trained} {latest} && sciml run --resume {folder}")
        raise UserError(f"{latest}: no checkpoint to resume from")
    try:
        template = driver.template(_attrs(latest))
    except UserError as e:
        raise UserError(f"{latest}: {e}") from None
    state, attrs = checkpoint.load(latest, template)
    if any(name.startswith(f"['{OPTIMIZER}']") for name in checkpoint.left_out(attrs)):
        warn(f"{latest}: the checkpoint resumed from holds no optimizer state (or only part of it): the optimizer "
             f"starts afresh from its parameters at step {attrs.get('step', '?')}")
        state = {**state, OPTIMIZER: template[OPTIMIZER]}
    return state, attrs


def _attrs(path: str) -> dict:
    """The attributes of the checkpoint version :func:`checkpoint.load` takes, or ``{}`` if none can be read
    (loading it then says what is wrong)."""
    try:
        return {k: v.item() if isinstance(v, np.generic) else v for k, v in checkpoint.attrs(path).items()}
    except UserError:
        return {}


class _Stop(signals.Deferred):
    """SIGTERM and SIGINT while training (:class:`~sciml.signals.Deferred`): the loop stops after the current chunk
    once every process has seen the first (module notes)."""

    def requested(self) -> int:
        """The signal that asked to stop (0: none), agreed by all processes."""
        return parallel.largest(self.signum)
