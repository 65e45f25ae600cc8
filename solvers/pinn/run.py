"""The PINN driver: train a case, write its run folder, return its summary.

Phases run in order (Adam, then L-BFGS), each as jitted chunks of ``training.log_every`` steps. After each
chunk: a NaN/inf check (the run stops at the exact step, keeping the last good checkpoint), a metrics row,
the progress bar, checkpoints (``latest`` and ``best`` by loss) and, when due, new collocation points.
"""
from __future__ import annotations

import os
import time

import h5py
import jax
import numpy as np
from tqdm.auto import tqdm

from sciml import plots
from sciml.config import to_dict
from sciml.errors import TrainingDiverged, UserError
from sciml.io import checkpoint
from sciml.io.atomic import atomic_path, write_json, write_yaml
from sciml.rundir import Metrics

from . import optim
from .config import PinnCase
from .problem import Problem, assemble


def _phases(cfg: PinnCase, problem: Problem):
    """``(name, last step, optimizer, chunk function, lr schedule)`` for each phase with steps."""
    length = cfg.training.log_every
    tx, sched = optim.adam(cfg.training.adam)
    out, end = [], cfg.training.adam.steps
    if end:
        out.append(("adam", end, tx, optim.adam_chunk(problem.loss, tx, length), sched))
    if cfg.training.lbfgs.steps:
        tx = optim.lbfgs(cfg.training.lbfgs)
        out.append(("lbfgs", end + cfg.training.lbfgs.steps, tx, optim.lbfgs_chunk(problem.loss, tx, length),
                    lambda s: float("nan")))
    return out


def _relative_l2(pred: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(pred - ref) / max(np.linalg.norm(ref), 1e-300))


def evaluate(problem: Problem, params, reference: dict | None, points, shape) -> tuple[dict, dict]:
    """Predictions on the evaluation points (reshaped to ``shape``) and relative L2 errors per field."""
    pred = {k: v.reshape(shape) for k, v in problem.predict(params, points).items()}
    metrics = {}
    if reference is not None:
        metrics = {f"rel_l2_{k}": _relative_l2(pred[k], reference[k]) for k in pred if k in reference}
    return pred, metrics


def write_fields(path: str, X, Y, pred: dict, reference: dict | None) -> None:
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as f:
        f["x"], f["y"] = X, Y
        for k, v in pred.items():
            g = f.create_group(k)
            g.create_dataset("prediction", data=v, compression="gzip")
            if reference is not None and k in reference:
                g.create_dataset("reference", data=reference[k], compression="gzip")
                g.create_dataset("error", data=v - reference[k], compression="gzip")


def train(cfg: PinnCase, out: str, resume: str | None = None, quiet: bool = False) -> dict:
    """Train the case into run folder ``out`` (``resume``: continue from that folder's latest checkpoint)."""
    jax.config.update("jax_enable_x64", cfg.dtype == "float64")
    t_setup = time.perf_counter()
    problem = assemble(cfg)
    rng = np.random.default_rng(cfg.seed)
    key_init, key_train = jax.random.split(jax.random.PRNGKey(cfg.seed))
    phases = _phases(cfg, problem)
    points, shape, (X, Y) = problem.geometry.evaluation_points(cfg.evaluation.grid)
    reference = problem.equation.reference(points)
    if reference is not None:
        reference = {k: np.asarray(v).reshape(shape) for k, v in reference.items()}
    write_yaml(os.path.join(out, "config.yaml"), to_dict(cfg))

    params = problem.init(key_init)
    state = optim.init_state(params, phases[0][2], key_train) if phases else {"params": params}
    metrics = Metrics(os.path.join(out, "metrics.csv"))
    best, elapsed0, phase_of_state = float("inf"), 0.0, phases[0][0] if phases else None
    if resume:
        state, phase_of_state, metrics, best, elapsed0 = _resume(resume, problem, phases, metrics)
    batch = problem.sample(rng)
    total = phases[-1][1] if phases else 0
    step = int(state.get("step", 0))
    ckpt = lambda name: os.path.join(out, "checkpoints", f"{name}.h5")

    bar = tqdm(total=total, initial=step, disable=quiet, unit="step", dynamic_ncols=True, leave=True)
    compile_s, t0 = 0.0, time.perf_counter()
    try:
        for p_index, (name, end, tx, chunk, sched) in enumerate(phases):
            if step >= end:
                continue
            if phase_of_state != name:  # a new phase starts a fresh optimizer state from the params
                state, phase_of_state = optim.init_state(state["params"], tx, state["key"], step), name
            tc = time.perf_counter()
            chunk = chunk.lower(state, batch, cfg.training.log_every).compile()
            compile_s += time.perf_counter() - tc
            while step < end:
                n = min(cfg.training.log_every, end - step)
                new, losses = chunk(state, batch, n)
                losses = np.asarray(losses)[:n]
                bad = np.flatnonzero(~np.isfinite(losses))
                if bad.size:
                    checkpoint.save(ckpt("latest"), state, step=step, phase=name)
                    raise TrainingDiverged(
                        f"loss became {losses[bad[0]]} at step {step + int(bad[0])} ({name}); training stopped. "
                        f"The last good state (step {step}) is in {ckpt('latest')}")
                state, step = new, step + n
                _, terms = problem.loss(state["params"], batch, state["key"])
                row = {"step": step, "loss": float(losses[-1]),
                       **{f"loss.{k}": float(v) for k, v in terms.items()},
                       "lr": float(sched(step - 1)), "wall_time_s": elapsed0 + time.perf_counter() - t0, "phase": p_index}
                metrics.append(row)
                bar.update(n)
                bar.set_postfix(loss=f"{row['loss']:.3e}", phase=name, refresh=False)
                if row["loss"] < best:
                    best = row["loss"]
                    checkpoint.save(ckpt("best"), state, step=step, loss=best, phase=name)
                if step % cfg.training.checkpoint_every < n or step == end:
                    checkpoint.save(ckpt("latest"), state, step=step, loss=row["loss"], phase=name)
                every = cfg.sampling.resample_every
                if every and name == "adam" and step // every != (step - n) // every:
                    batch = problem.sample(rng)
                if cfg.evaluation.every and step % cfg.evaluation.every < n and reference is not None:
                    _, m = evaluate(problem, state["params"], reference, points, shape)
                    bar.write(f"step {step}: " + ", ".join(f"{k} {v:.3e}" for k, v in m.items()))
    finally:
        bar.close()
    wall = elapsed0 + time.perf_counter() - t0

    pred, errors = evaluate(problem, state["params"], reference, points, shape)
    write_fields(os.path.join(out, "fields.h5"), X, Y, pred, reference)
    if metrics.rows:
        plots.loss_history(metrics.rows, os.path.join(out, "plots", "loss.png"), f"{cfg.case}: loss")
    for k in pred:
        plots.field_maps(X, Y, pred[k], None if reference is None else reference.get(k), k,
                         os.path.join(out, "plots", f"{k}.png"))
    trained = step
    summary = {
        "case": cfg.case, "steps": step, "wall_time_s": round(wall, 3),
        "steps_per_s": round(trained / max(wall - compile_s, 1e-9), 3) if trained else 0.0,
        "compile_time_s": round(compile_s, 3), "setup_time_s": round(t0 - t_setup, 3),
        "final_loss": metrics.rows[-1]["loss"] if metrics.rows else None,
        "autodiff_mode": cfg.autodiff.mode, "dtype": cfg.dtype, "seed": cfg.seed,
        "metrics": errors, "run_dir": out,
    }
    write_json(os.path.join(out, "summary.json"), summary)
    return summary


def _resume(folder: str, problem: Problem, phases, metrics: Metrics):
    path = os.path.join(folder, "checkpoints", "latest.h5")
    if not os.path.exists(path):
        raise UserError(f"{path}: no checkpoint to resume from")
    with h5py.File(path, "r") as f:
        phase = f.attrs.get("phase", "adam")
    names = [p[0] for p in phases]
    if phase not in names:
        raise UserError(f"{path}: saved in phase {phase!r}, which this case no longer has")
    tx = phases[names.index(phase)][2]
    template = optim.init_state(problem.init(jax.random.PRNGKey(0)), tx, jax.random.PRNGKey(0))
    state, _ = checkpoint.load(path, template)
    rows = Metrics.read(os.path.join(folder, "metrics.csv"))
    best = min((r["loss"] for r in rows), default=float("inf"))
    elapsed = rows[-1]["wall_time_s"] if rows else 0.0
    return state, phase, Metrics(metrics.path, rows), best, elapsed
