"""The FNO driver: ``datagen`` makes a case's dataset, ``train`` fits the operator and writes its run folder.

An epoch is one pass over the shuffled training set (the order drawn from ``(seed, epoch)``, so a resumed
run sees the same batches) in minibatches, each one call of a jitted train step (AdamW with a step or
cosine schedule). After each epoch: a NaN/inf check (the run stops, keeping the state of the last good
epoch), the test error at the training resolution every ``evaluation.every`` epochs, a metrics row,
checkpoints (``latest`` every ``training.checkpoint_every`` epochs, ``best`` by training loss). At the end
the model is evaluated at every test resolution (zero-shot super-resolution above the training grid).

Devices (``parallel``): each minibatch is sharded along the mesh's data axis (under several processes each
reads its own rows of it), the state is replicated (or split along the FNO's channels on a ``[data,
channels]`` mesh), and the step stays one ``jit``. Evaluation runs on each process's copy of the
parameters; only process 0 writes the run folder.
"""
from __future__ import annotations

import json
import os
import time

import h5py
import jax
import jax.numpy as jnp
import numpy as np
import optax
from tqdm.auto import tqdm

from sciml import parallel
from sciml.compile import Policy
from sciml.config import to_dict
from sciml.errors import ConfigError, TrainingDiverged, UserError
from sciml.io import checkpoint
from sciml.io.atomic import atomic_path, write_json, write_yaml
from sciml.nn import fno, losses
from sciml.rundir import Metrics

from . import data, plots
from .config import FnoCase
from .generators import GENERATORS
from .model import Operator, build, partition


def datagen(cfg: FnoCase, quiet: bool = False, force: bool = False, workers: int = 1) -> str:
    """Write the case's dataset to ``data.path`` (kept if it exists with the same settings, unless ``force``);
    ``workers`` processes solve the chunks in parallel (the same file as one process makes)."""
    path = cfg.data.path
    if os.path.exists(path) and not force:
        data.check(cfg.data, path, remedy="add --force to overwrite it")
        if not quiet:
            print(f"{path} is up to date (use --force to make it again)")
        return path
    gen = GENERATORS[cfg.data.generator]
    try:
        gen.module
    except ImportError as e:
        raise UserError(f"generator {cfg.data.generator!r} is not available ({e})") from None
    total = cfg.data.n_train + cfg.data.n_test
    with tqdm(total=total, disable=quiet, unit="sample", desc=f"{cfg.data.generator} {cfg.data.solver_grid}",
              dynamic_ncols=True) as bar:
        data.write(cfg.data, path, progress=bar.update, workers=workers)
    return path


def schedule(cfg: FnoCase, steps_per_epoch: int) -> optax.Schedule:
    t, s = cfg.training, cfg.training.schedule
    total = max(t.epochs * steps_per_epoch, 1)
    table = {
        "constant": lambda: optax.constant_schedule(t.lr),
        "step": lambda: optax.exponential_decay(t.lr, s.every * steps_per_epoch, s.gamma, staircase=True),
        "cosine": lambda: optax.cosine_decay_schedule(t.lr, total, alpha=s.final_lr / t.lr),
    }
    return table[s.type]()


def optimizer(cfg: FnoCase, sched: optax.Schedule) -> optax.GradientTransformation:
    wd = cfg.training.weight_decay
    return optax.adamw(sched, weight_decay=wd) if wd else optax.adam(sched)


def make_step(op: Operator, tx: optax.GradientTransformation, loss_name: str, dims: int):
    """``(state, x, y) -> (state, loss)``: one jitted AdamW step on a minibatch."""
    loss_fn = losses.LOSSES[loss_name]
    kw = {"d": dims} if loss_name == "h1" else {}

    def loss(params, stats, x, y):
        return loss_fn(op.predict(params, stats, x), y, **kw)

    def step(state, x, y):
        value, grads = jax.value_and_grad(loss)(state["params"], state["stats"], x, y)
        updates, opt = tx.update(grads, state["opt"], state["params"])
        params = optax.apply_updates(state["params"], updates)
        return {**state, "params": params, "opt": opt, "epoch": state["epoch"]}, value

    return jax.jit(step)


def make_eval(op: Operator):
    """``(params, stats, x, y) -> (pred, per-sample rel. L2)``, jitted (one compile per shape)."""

    @jax.jit
    def run(params, stats, x, y):
        pred = op.predict(params, stats, x)
        return pred, losses.rel_l2(pred, y, reduce=False)

    return run


def evaluate(run, state, split: data.Split, batch_size: int, keep: int = 0):
    """Mean test rel. L2 over ``split`` and the first ``keep`` predictions."""
    errs, kept = [], []
    for x, y in split.batches(batch_size):
        pred, e = run(state["params"], state["stats"], x, y)
        errs.append(np.asarray(e))
        if sum(len(k) for k in kept) < keep:
            kept.append(np.asarray(pred))
    preds = np.concatenate(kept)[:keep] if kept else None
    return float(np.mean(np.concatenate(errs))), preds


# compiled functions by what they depend on, so that runs in one process (tests, notebooks, studies) that
# share a model and optimiser compile once
_CACHE: dict[str, tuple] = {}


def functions(cfg: FnoCase, c_in: int, c_out: int, per_epoch: int):
    """``(operator, schedule, optimiser, jitted step, jitted eval)`` for a case, cached by their inputs."""
    training = to_dict(cfg.training)
    training.pop("checkpoint_every")
    if cfg.training.schedule.type != "cosine":
        training.pop("epochs")
    key = json.dumps([to_dict(cfg.model), cfg.dtype, cfg.data.generator, cfg.data.t_in, cfg.data.t_out, training,
                      c_in, c_out, per_epoch], sort_keys=True)
    if key not in _CACHE:
        op = build(cfg, c_in, c_out)
        sched = schedule(cfg, per_epoch)
        tx = optimizer(cfg, sched)
        gen = GENERATORS[cfg.data.generator]
        _CACHE[key] = (op, sched, tx, make_step(op, tx, cfg.training.loss, gen.dims), make_eval(op))
        while len(_CACHE) > 8:
            _CACHE.pop(next(iter(_CACHE)))
    return _CACHE[key]


def _layout(cfg: FnoCase):
    """``(mesh, place_state)``: the device mesh and how the state is laid out on it."""
    mesh = parallel.mesh(cfg.parallel)
    size = parallel.data_size(mesh)
    if cfg.training.batch_size % size:
        raise ConfigError(f"{cfg.training.batch_size} is not a multiple of the {size} devices on the data axis "
                          f"(parallel)", key="training.batch_size")
    if parallel.channel_size(mesh) > 1:
        return mesh, lambda state: parallel.place(state, mesh, partition)
    return mesh, lambda state: parallel.replicate(state, mesh)


def train(cfg: FnoCase, out: str, resume: str | None = None, quiet: bool = False) -> dict:
    """Train the case into run folder ``out`` (``resume``: continue from that folder's latest checkpoint)."""
    t_setup = time.perf_counter()
    policy = Policy.of(cfg.dtype)
    policy.activate()
    np_dtype = policy.param_dtype  # inputs come in the parameters' dtype
    mesh, place_state = _layout(cfg)
    writer = parallel.is_writer()
    data.check(cfg.data, case=cfg.case)
    train_set, tests = data.open_splits(cfg.data.path, cfg.data.resolutions)
    if writer:
        write_yaml(os.path.join(out, "config.yaml"), to_dict(cfg))
        for sub in ("checkpoints", "plots"):
            os.makedirs(os.path.join(out, sub), exist_ok=True)

    bs = cfg.training.batch_size
    per_epoch = train_set.num_batches(bs, drop_last=True)
    op, sched, tx, step, eval_fn = functions(cfg, train_set.shapes[0][-1], train_set.shapes[1][-1], per_epoch)
    params = op.init(jax.random.PRNGKey(cfg.seed))
    stats = op.stats(*train_set.moments())
    state = {"params": params, "opt": tx.init(params), "stats": stats, "epoch": jnp.asarray(0, jnp.int32)}
    metrics = Metrics(os.path.join(out, "metrics.csv"))
    best, elapsed0 = float("inf"), 0.0
    if resume:
        state, metrics, best, elapsed0 = _resume(resume, state, metrics)
    epoch = int(state["epoch"])
    state = place_state(state)
    if parallel.channel_size(mesh) > 1:  # keep the channel layout from step to step (XLA may pick another)
        step = jax.jit(step, out_shardings=(jax.tree_util.tree_map(lambda a: a.sharding, state),
                                            parallel.replicated(mesh)))
    ckpt = lambda name: os.path.join(out, "checkpoints", f"{name}.h5")
    rows = parallel.local_rows(bs)
    put = lambda x, y: parallel.shard((np.asarray(x, np_dtype), np.asarray(y, np_dtype)), mesh)
    host = lambda state: parallel.to_host({"params": state["params"], "stats": state["stats"]})
    record = metrics.append if writer else metrics.rows.append

    def save(name, state, **attrs):
        state = parallel.to_host(state)  # on every process (a gather, if anything is sharded across them)
        if writer:
            checkpoint.save(ckpt(name), state, **attrs)

    tc = time.perf_counter()
    jax.block_until_ready(step(state, *put(*train_set.read(np.arange(bs)[rows]))))  # compiles (result dropped)
    test0 = tests[cfg.data.resolution]
    initial, _ = evaluate(eval_fn, host(state), test0, cfg.evaluation.batch_size) if not resume else (None, None)
    compile_s = time.perf_counter() - tc

    epoch_times, epoch_cpu, t0 = [], [], time.perf_counter()
    bar = tqdm(total=cfg.training.epochs * per_epoch, initial=epoch * per_epoch, disable=quiet, unit="batch",
               dynamic_ncols=True, leave=True)
    try:
        while epoch < cfg.training.epochs:
            good, te, ce = state, time.perf_counter(), time.process_time()
            batch_losses = []
            for x, y in train_set.batches(bs, np.random.default_rng([cfg.seed, epoch]), drop_last=True, rows=rows):
                state, loss = step(state, *put(x, y))
                batch_losses.append(loss)
                bar.update(1)
            batch_losses = np.asarray(jnp.stack(batch_losses))
            train_s, train_cpu = time.perf_counter() - te, time.process_time() - ce
            bad = np.flatnonzero(~np.isfinite(batch_losses))
            if bad.size:
                save("latest", good, epoch=epoch, step=epoch * per_epoch)
                raise TrainingDiverged(
                    f"loss became {batch_losses[bad[0]]} in epoch {epoch + 1} (batch {int(bad[0]) + 1} of "
                    f"{per_epoch}); training stopped. The last good state (end of epoch {epoch}) is in "
                    f"{ckpt('latest')}")
            epoch += 1
            state = {**state, "epoch": parallel.replicate(np.int32(epoch), mesh)}
            epoch_times.append(train_s)
            epoch_cpu.append(train_cpu)
            row = {"epoch": epoch, "step": epoch * per_epoch, "loss": float(batch_losses.mean()),
                   "test_rel_l2": float("nan"), "eval_s": 0.0}
            if epoch % cfg.evaluation.every == 0 or epoch == cfg.training.epochs:
                tv = time.perf_counter()
                row["test_rel_l2"], _ = evaluate(eval_fn, host(state), test0, cfg.evaluation.batch_size)
                row["eval_s"] = time.perf_counter() - tv
            row.update({"lr": float(sched(epoch * per_epoch - 1)), "epoch_s": train_s,
                        "wall_time_s": elapsed0 + time.perf_counter() - t0})
            record(row)
            bar.set_postfix(loss=f"{row['loss']:.3e}", test=f"{row.get('test_rel_l2', float('nan')):.3e}",
                            s_epoch=f"{train_s:.2f}", refresh=False)
            if row["loss"] < best:
                best = row["loss"]
                save("best", state, epoch=epoch, step=epoch * per_epoch, loss=best)
            if epoch % cfg.training.checkpoint_every == 0 or epoch == cfg.training.epochs:
                save("latest", state, epoch=epoch, step=epoch * per_epoch, loss=row["loss"])
    finally:
        bar.close()
    wall = elapsed0 + time.perf_counter() - t0
    if not epoch_times:  # nothing trained in this call (no epochs, or resumed at the end)
        save("latest", state, epoch=epoch, step=epoch * per_epoch)

    results = _final_evaluation(cfg, eval_fn, host(state), tests, out if writer else None)
    if metrics.rows and writer:
        plots.history(metrics.rows, os.path.join(out, "plots", "history.png"), f"{cfg.case}: training")
    trained = len(epoch_times) * per_epoch
    s_per_epoch = float(np.mean(epoch_times)) if epoch_times else 0.0
    summary = {
        "case": cfg.case, "steps": epoch * per_epoch, "epochs": epoch, "wall_time_s": round(wall, 3),
        "s_per_epoch": round(s_per_epoch, 4),
        "steps_per_s": round(trained / max(sum(epoch_times), 1e-9), 3) if trained else 0.0,
        "steps_per_cpu_s": round(trained / max(sum(epoch_cpu), 1e-9), 3) if trained else 0.0,
        "compile_time_s": round(compile_s, 3), "setup_time_s": round(tc - t_setup, 3),
        "final_loss": metrics.rows[-1]["loss"] if metrics.rows else None,
        "initial_rel_l2": initial, "metrics": results, "params": fno.count(state["params"]),
        "dtype": cfg.dtype, "seed": cfg.seed, "dataset": cfg.data.path, "parallel": parallel.describe(mesh),
        "compile_cache": jax.config.jax_compilation_cache_dir, "run_dir": out,
    }
    if writer:
        write_json(os.path.join(out, "summary.json"), summary)
    if not quiet:
        print(f"{epoch} epochs, {s_per_epoch:.3f} s/epoch; test " +
              ", ".join(f"{k} {v:.4f}" for k, v in results.items()))
    return summary


def _final_evaluation(cfg: FnoCase, eval_fn, state, tests: dict, out: str | None) -> dict:
    """Test rel. L2 at every resolution; fields.h5 and plots of the first samples (``out`` None: no files)."""
    keep = cfg.evaluation.plots
    evaluated = {r: evaluate(eval_fn, state, split, cfg.evaluation.batch_size, keep=max(keep, 1) if out else 0)
                 for r, split in tests.items()}
    results = {"rel_l2" if r == cfg.data.resolution else f"rel_l2_{r}": err for r, (err, _) in evaluated.items()}
    if out is None:
        return results
    with atomic_path(os.path.join(out, "fields.h5")) as tmp, h5py.File(tmp, "w") as f:
        for r, (err, preds) in evaluated.items():
            split = tests[r]
            x, y = split.read(np.arange(len(preds)))
            g = f.create_group(str(r))
            g.attrs["rel_l2"] = err
            for name, a in (("inputs", x), ("outputs", y), ("prediction", preds), ("error", preds - y)):
                g.create_dataset(name, data=a, compression="gzip")
            g["grid"] = split.grid
            for i in range(min(keep, len(preds))):
                plots.sample(split.grid, x[i], y[i], preds[i], os.path.join(out, "plots", f"test_{r}_{i}.png"),
                             f"{cfg.case}, s = {r}, test sample {i}")
    return results


def _resume(folder: str, template: dict, metrics: Metrics):
    path = os.path.join(folder, "checkpoints", "latest.h5")
    if not os.path.exists(path):
        raise UserError(f"{path}: no checkpoint to resume from")
    state, _ = checkpoint.load(path, template)
    state = jax.tree_util.tree_map(jnp.asarray, state)
    rows = [r for r in Metrics.read(os.path.join(folder, "metrics.csv")) if r["epoch"] <= int(state["epoch"])]
    best = min((r["loss"] for r in rows), default=float("inf"))
    elapsed = rows[-1]["wall_time_s"] if rows else 0.0
    return state, Metrics(metrics.path, rows), best, elapsed
