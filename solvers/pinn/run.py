"""The PINN driver: train a case, write its run folder, return its summary.

Phases run in order (Adam, then L-BFGS), each as jitted chunks of ``training.log_every`` steps. After each
chunk: a NaN/inf check (the run stops at the exact step, keeping the last good checkpoint), a metrics row,
the progress bar, checkpoints (``latest`` and ``best`` by loss) and, when due, new collocation points
(``sampling.resample_every``) or residual-based refinement (``sampling.adaptive``: the candidates with the
largest residual join the interior points; the chunk compiles again for the larger batch).

Evaluation uses the domain's grid (:mod:`.evaluation`): errors over all points inside (space-time for
unsteady cases), plots on the x-y plane (middle z, final time), then the equation's ``checks``.

Devices (``parallel``): the batch is placed once when it is made (and again when it is re-made) with its
points sharded along the mesh's data axis (counts rounded up to fill it) and the state replicated, so the
chunks stay the single-device code. Under several processes each draws its share of the points from its
own stream, evaluates on its own copy of the parameters, and only process 0 writes the run folder.
"""
from __future__ import annotations

import os
import time

import h5py
import jax
import numpy as np
from tqdm.auto import tqdm

from sciml import parallel, plots
from sciml.compile import Policy
from sciml.config import to_dict
from sciml.errors import TrainingDiverged, UserError
from sciml.io import checkpoint
from sciml.io.atomic import atomic_path, write_json, write_yaml
from sciml.rundir import Metrics

from . import balancing, evaluation, optim
from . import plots as pinn_plots
from .config import PinnCase
from .problem import Problem, assemble


def _phases(cfg: PinnCase, problem: Problem):
    """``(name, last step, optimizer, chunk function, lr schedule)`` for each phase with steps."""
    length = cfg.training.log_every
    tx, sched = optim.adam(cfg.training.adam)
    out, end = [], cfg.training.adam.steps
    bal = cfg.loss.balancing
    balance = balancing.grad_norm(problem.term_losses, bal.alpha) if bal is not None else None
    if end:
        out.append(("adam", end, tx, optim.adam_chunk(problem.loss, tx, length, balance, bal.every if bal else 1),
                    sched))
    if cfg.training.lbfgs.steps:
        tx = optim.lbfgs(cfg.training.lbfgs)
        out.append(("lbfgs", end + cfg.training.lbfgs.steps, tx, optim.lbfgs_chunk(problem.loss, tx, length),
                    lambda s: float("nan")))
    return out


def evaluate(problem: Problem, params, reference: dict | None, ev) -> tuple[dict, dict]:
    """Predictions on the evaluation grid (shaped like it) and relative L2 errors per field (inside only)."""
    pred = {k: v.reshape(ev.shape) for k, v in problem.predict(params, ev.points).items()}
    eq = problem.equation
    return evaluation.errors(pred, reference, ev, eq.gauge_free, eq.vectors)


def write_fields(path: str, ev, pred: dict, reference: dict | None) -> None:
    with atomic_path(path) as tmp, h5py.File(tmp, "w") as f:
        for c, grid in zip(ev.coords, ev.grids()):
            f[c] = grid
        f["inside"] = ev.mask.reshape(ev.shape)
        for k, v in pred.items():
            g = f.create_group(k)
            g.create_dataset("prediction", data=v, compression="gzip")
            if reference is not None and k in reference:
                g.create_dataset("reference", data=reference[k], compression="gzip")
                g.create_dataset("error", data=v - reference[k], compression="gzip")


def train(cfg: PinnCase, out: str, resume: str | None = None, quiet: bool = False) -> dict:
    """Train the case into run folder ``out`` (``resume``: continue from that folder's latest checkpoint)."""
    Policy.of(cfg.dtype).activate(exact=True)
    t_setup = time.perf_counter()
    mesh, writer = parallel.mesh(cfg.parallel), parallel.is_writer()
    share = lambda n: parallel.local_share(n, mesh)
    problem = assemble(cfg)
    rng = parallel.rng(cfg.seed)
    key_init, key_train = jax.random.split(jax.random.PRNGKey(cfg.seed))
    phases = _phases(cfg, problem)
    ev = problem.geometry.evaluation_points(cfg.evaluation.grid)
    reference = problem.equation.reference(ev.points)
    if reference is not None:
        reference = {k: np.asarray(v).reshape(ev.shape) for k, v in reference.items()}
    ckpt = lambda name: os.path.join(out, "checkpoints", f"{name}.h5")

    def save(name, state, **attrs):
        host = parallel.to_host(state)  # on every process (a gather, if anything is sharded across them)
        if writer:
            checkpoint.save(ckpt(name), host, **attrs)

    if writer:
        write_yaml(os.path.join(out, "config.yaml"), to_dict(cfg))

    params = problem.init(key_init)
    weights = _initial_weights(cfg, problem, params)
    state = optim.init_state(params, phases[0][2], key_train, weights=weights) if phases else {"params": params}
    metrics = Metrics(os.path.join(out, "metrics.csv"))
    best, elapsed0, phase_of_state = float("inf"), 0.0, phases[0][0] if phases else None
    if resume:
        state, phase_of_state, metrics, best, elapsed0 = _resume(resume, problem, phases, metrics, weights)
    state = parallel.replicate(state, mesh)
    record = metrics.append if writer else metrics.rows.append
    refiner = _Refiner(cfg, problem, rng, share)
    base = problem.sample(rng, share)
    batch = problem.place(base, mesh)
    total = phases[-1][1] if phases else 0
    step = int(state.get("step", 0))

    term_values = jax.jit(lambda p, b, k: problem.loss(p, b, k)[1])
    bar = tqdm(total=total, initial=step, disable=quiet, unit="step", dynamic_ncols=True, leave=True)
    compile_s, t0 = 0.0, time.perf_counter()
    try:
        for p_index, (name, end, tx, chunk, sched) in enumerate(phases):
            if step >= end:
                continue
            if phase_of_state != name:  # a new phase starts a fresh optimizer state from the params
                host = parallel.to_host(state)
                state = parallel.replicate(optim.init_state(host["params"], tx, host["key"], step,
                                                            host.get("weights")), mesh)
                phase_of_state = name
            jitted, compiled, shapes = chunk, None, None
            while step < end:
                if _shapes(batch) != shapes:  # first chunk of the phase, or a refined batch
                    tc = time.perf_counter()
                    compiled, shapes = jitted.lower(state, batch, cfg.training.log_every).compile(), _shapes(batch)
                    compile_s += time.perf_counter() - tc
                chunk = compiled
                n = min(cfg.training.log_every, end - step)
                new, losses = chunk(state, batch, n)
                losses = np.asarray(losses)[:n]
                bad = np.flatnonzero(~np.isfinite(losses))
                if bad.size:
                    save("latest", state, step=step, phase=name)
                    raise TrainingDiverged(
                        f"loss became {losses[bad[0]]} at step {step + int(bad[0])} ({name}); training stopped. "
                        f"The last good state (step {step}) is in {ckpt('latest')}")
                state, step = new, step + n
                terms = term_values(state["params"], batch, state["key"])
                row = {"step": step, "loss": float(losses[-1]),
                       **{f"loss.{k}": float(terms[k]) for k in problem.terms},
                       **{f"weight.{k}": float(v) for k, v in state.get("weights", {}).items()},
                       "lr": float(sched(step - 1)), "wall_time_s": elapsed0 + time.perf_counter() - t0, "phase": p_index}
                record(row)
                bar.update(n)
                bar.set_postfix(loss=f"{row['loss']:.3e}", phase=name, refresh=False)
                if row["loss"] < best:
                    best = row["loss"]
                    save("best", state, step=step, loss=best, phase=name)
                if step % cfg.training.checkpoint_every < n or step == end:
                    save("latest", state, step=step, loss=row["loss"], phase=name)
                crossed = lambda k: bool(k) and step // k != (step - n) // k
                resample, refine = crossed(cfg.sampling.resample_every), crossed(refiner.every)
                if name == "adam" and (resample or refine):
                    base = problem.sample(rng, share) if resample else base
                    if refine:
                        refiner.refine(parallel.to_host(state["params"]))
                    batch = problem.place(problem.extend(base, refiner.points), mesh)
                if cfg.evaluation.every and step % cfg.evaluation.every < n and reference is not None:
                    _, m = evaluate(problem, parallel.to_host(state["params"]), reference, ev)
                    bar.write(f"step {step}: " + ", ".join(f"{k} {v:.3e}" for k, v in m.items()))
    finally:
        bar.close()
    wall = elapsed0 + time.perf_counter() - t0

    params = parallel.to_host(state["params"])
    pred, errors = evaluate(problem, params, reference, ev)
    if writer:
        write_fields(os.path.join(out, "fields.h5"), ev, pred, reference)
        if metrics.rows:
            plots.loss_history(metrics.rows, os.path.join(out, "plots", "loss.png"), f"{cfg.case}: loss")
    notes = _plots_and_checks(problem, params, ev, pred, reference, out if writer else None)
    errors.update(notes.pop("metrics"))
    trained = step
    summary = {
        "case": cfg.case, "steps": step, "wall_time_s": round(wall, 3),
        "steps_per_s": round(trained / max(wall - compile_s, 1e-9), 3) if trained else 0.0,
        "compile_time_s": round(compile_s, 3), "setup_time_s": round(t0 - t_setup, 3),
        "final_loss": metrics.rows[-1]["loss"] if metrics.rows else None,
        "autodiff_mode": cfg.autodiff.mode, "dtype": cfg.dtype, "seed": cfg.seed,
        "parallel": {**parallel.describe(mesh), "interior_points": int(batch["interior"].shape[0])},
        "compile_cache": jax.config.jax_compilation_cache_dir,
        "metrics": errors, "run_dir": out,
    }
    if notes["notes"]:
        summary["notes"] = notes["notes"]
    if refiner.on:
        summary["adaptive_points"] = 0 if refiner.points is None else int(len(refiner.points)) * jax.process_count()
    if writer:
        write_json(os.path.join(out, "summary.json"), summary)
    return summary


def _shapes(batch):
    return jax.tree_util.tree_map(np.shape, batch)


def _initial_weights(cfg: PinnCase, problem: Problem, params):
    if cfg.loss.balancing is None:
        return None
    dtype = jax.tree_util.tree_leaves(params)[0].dtype
    return balancing.initial_weights(problem.terms, dtype)


class _Refiner:
    """Residual-based adaptive refinement: keeps the added interior points (physical coordinates)."""

    def __init__(self, cfg: PinnCase, problem: Problem, rng, share=lambda n: n):
        self.cfg, self.problem, self.rng, self.share = cfg.sampling.adaptive, problem, rng, share
        self.on = self.cfg is not None
        self.every = self.cfg.every if self.on else 0
        self.points = None

    def refine(self, params) -> None:
        c, geo, eq = self.cfg, self.problem.geometry, self.problem.equation
        have = 0 if self.points is None else len(self.points)
        add = min(self.share(c.add), self.share(c.max_points) - have)  # this process's share
        if add <= 0:
            return
        cand = geo.interior(c.candidates, self.rng, "uniform")
        dtype = jax.tree_util.tree_leaves(params)[0].dtype
        score = np.asarray(self.problem.residual_score(params, jax.numpy.asarray(eq.to_nondim(cand), dtype)))
        best = cand[np.argsort(-score)[:add]]
        self.points = best if self.points is None else np.concatenate([self.points, best])


def _plots_and_checks(problem: Problem, params, ev, pred, reference, out: str | None) -> dict:
    """Field maps on the plot plane, a flow picture for velocity fields, and the equation's checks
    (``out`` None: the checks' metrics without writing plots)."""
    result = {"metrics": {}, "notes": []}
    for check in problem.equation.checks(lambda pts: problem.predict(params, pts)):
        result["metrics"].update(check.metrics)
        result["notes"].extend(check.notes)
        for name, prof in (check.profiles if out is not None else {}).items():
            pinn_plots.profile(prof, os.path.join(out, "plots", f"{name}.png"))
    if out is None:
        return result
    folder = os.path.join(out, "plots")
    index, where = evaluation.plane(ev)
    grids = ev.grids()
    X, Y = grids[0][index], grids[1][index]
    p2, r2 = evaluation.on_plane(ev, pred, index), evaluation.on_plane(ev, reference, index)
    for k in p2:
        pinn_plots.field_maps(X, Y, p2[k], None if r2 is None else r2.get(k), k,
                              os.path.join(folder, f"{k}.png"), where)
    if "u" in p2 and "v" in p2:
        pinn_plots.flow(X, Y, p2["u"], p2["v"], os.path.join(folder, "flow.png"), where)
    return result


def _resume(folder: str, problem: Problem, phases, metrics: Metrics, weights=None):
    path = os.path.join(folder, "checkpoints", "latest.h5")
    if not os.path.exists(path):
        raise UserError(f"{path}: no checkpoint to resume from")
    with h5py.File(path, "r") as f:
        phase = f.attrs.get("phase", "adam")
    names = [p[0] for p in phases]
    if phase not in names:
        raise UserError(f"{path}: saved in phase {phase!r}, which this case no longer has")
    tx = phases[names.index(phase)][2]
    template = optim.init_state(problem.init(jax.random.PRNGKey(0)), tx, jax.random.PRNGKey(0), weights=weights)
    state, _ = checkpoint.load(path, template)
    rows = Metrics.read(os.path.join(folder, "metrics.csv"))
    best = min((r["loss"] for r in rows), default=float("inf"))
    elapsed = rows[-1]["wall_time_s"] if rows else 0.0
    return state, phase, Metrics(metrics.path, rows), best, elapsed
