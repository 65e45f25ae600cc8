"""The FNO driver: ``datagen`` makes a case's dataset, ``train`` fits the operator and writes its run folder.

The run skeleton (run folder, metrics rows, checkpoints, the NaN stop, resume, stopping on a signal, the
summary) is :mod:`sciml.loop`'s; its chunks here are epochs. An epoch is one pass over the shuffled training
set (the order drawn from ``(seed, epoch)``, so a resumed run sees the same batches) in minibatches, each one
call of a jitted train step (AdamW with a learning-rate schedule from :mod:`sciml.schedules`: the paper's
step decay, cosine or one-cycle, each after an optional warm-up of ``schedule.warmup`` epochs). The first
chunk compiles the step and the evaluation and measures the test error before training. A metrics row holds
the mean training loss, the test error at the training resolution (every ``evaluation.every`` epochs) and
the epoch's time; ``latest`` is due every ``training.checkpoint_every`` epochs. At the end the model is
evaluated at every test resolution (zero-shot super-resolution above the training grid), and the summary
gives, next to that final error, the mean, std, min and max of the last ``evaluation.last_k`` test errors
(:func:`last_k`: one draw of a noisy curve is not the run's error). For a generator with physics (the plate)
the final evaluation also scores the fields the physics derives from the decoded output (the bending moments:
second derivatives by the Taylor engine at the test grid's points) against the generator's own, solved again
for the same test loads (:func:`make_derived`, :func:`evaluate_derived`). With ``evaluation.estimate`` (a
generator with physics: the plate, Darcy) it reports the physics' per-sample error estimate on each test grid
(:meth:`.physics.Plate.estimate`; :func:`make_estimate`): ``estimate``, its mean, and ``estimate_spearman``, its
rank correlation with the true errors of the output's first channel; the summary's ``estimate_calibration`` holds,
per test grid, the quantiles of true error / estimate and the flag threshold that ``sciml predict --estimate``
applies (:func:`.estimate.calibrate`). With ``evaluation.decoded`` each
finer grid is also scored by the operator on the training grid with its output decoded at the finer points
(:func:`make_decoded`, ``rel_l2_<s>_decoded``), beside the network run on the finer inputs (``rel_l2_<s>``).

Labelled samples (``data.n_labelled``, the PINO paper's setting): the data term is computed on a batch of its
own each step, drawn from the first ``n_labelled`` training samples (:func:`labelled_batches`, its order from
``(seed, epoch, 1)``), while the physics terms take the epoch's minibatches of every training input; the
outputs' scaling comes from the labelled samples, so no other solved output enters training (``training.augment``
turns the labelled batches' samples, and the physics terms' inputs, each by its own draw). With
``data.physics_resolution`` those minibatches are the training inputs on that finer grid (an input costs no solve,
a label does: the physics on a finer grid than the labels, as the PINO paper does); the data term stays on the
training grid. ``data.n_physics`` adds that many inputs that were never solved to the physics terms' minibatches
(an epoch is then ``n_train + n_physics`` inputs).

Weight averaging (``training.average``, :mod:`sciml.averaging`): with ``ema`` the step also updates an
exponential moving average of the parameters, with ``swa`` the end of each epoch a running mean; the average
is part of the state (checkpointed, resumed exactly), and every evaluation (the metrics rows, the final
errors, ``fields.h5``, the plots, ``sciml export`` and ``predict``) uses it instead of the parameters. The
metrics rows then also hold ``test_rel_l2_raw``, the error of the parameters themselves.

Devices (``parallel``): each minibatch is sharded along the mesh's data axis (under several processes each
reads its own rows of it), the state is replicated (or split along the FNO's channels on a ``[data,
channels]`` mesh), and the step stays one ``jit``. Evaluation runs on each process's copy of the
parameters; only process 0 writes the run folder.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax

from sciml import averaging, loop, parallel, plots, schedules
from sciml.compile import Policy
from sciml.config import to_dict
from sciml.errors import ConfigError, UserError
from sciml.nn import fno, fno_field, losses

from . import data, estimate, fields_h5, operators
from . import plots as fno_plots
from .config import PHYSICS_TERMS, FnoCase, LossTerms
from .generators import coordinates, factor, subsample
from .model import Operator, partition
from .physics import PHYSICS


def schedule(cfg: FnoCase, steps_per_epoch: int) -> optax.Schedule:
    t = cfg.training
    return t.schedule.learning_rate(t.lr, max(t.epochs * steps_per_epoch, 1), steps_per_epoch)


def optimizer(cfg: FnoCase, sched: optax.Schedule) -> optax.GradientTransformation:
    wd = cfg.training.weight_decay
    return optax.adamw(sched, weight_decay=wd) if wd else optax.adam(sched)


def accumulated(loss, micro: int | None):
    """``loss(params, stats, x, y)``'s value and gradient, evaluated ``micro`` samples at a time and averaged
    (``lax.scan``; ``None``: the whole batch at once). The loss is a mean over samples, so this is the same
    step to rounding, with the memory of one micro-batch: on a CPU the fields of a few samples stay in cache
    where those of a whole batch go to fresh memory every step."""
    grad = jax.value_and_grad(loss)

    def value_and_grad(params, stats, x, y):
        n = x.shape[0]
        if micro is None or micro >= n:
            return grad(params, stats, x, y)
        # micro-batch k holds samples k, k + n/micro, ...: a batch sharded along its first axis gives each
        # micro-batch a slice of every device's shard
        split = lambda a: jnp.swapaxes(a.reshape((micro, n // micro, *a.shape[1:])), 0, 1)

        def add(total, xy):
            return jax.tree_util.tree_map(jnp.add, total, grad(params, stats, *xy)), None

        zero = (jnp.zeros((), x.dtype), jax.tree_util.tree_map(jnp.zeros_like, params))
        total, _ = jax.lax.scan(add, zero, (split(x), split(y)))
        return jax.tree_util.tree_map(lambda t: t * (micro / n), total)

    return value_and_grad


def make_step(op: Operator, tx: optax.GradientTransformation, loss_name: str, dims: int, micro: int | None = None,
              average: averaging.Averaging = averaging.NONE, terms: LossTerms | None = None, physics=None,
              labelled: bool = False, window: bool = False):
    """``(state, x, y) -> (state, loss)``: one jitted AdamW step on a minibatch (:func:`accumulated`), then
    ``average.step``. The loss is ``terms.data`` times ``loss_name`` of the predictions, plus the weighted
    physics terms (:mod:`.physics`) with positive weights (default: the data term alone). ``labelled``
    (``data.n_labelled``): ``(state, x, y, x_labelled, y_labelled) -> (state, loss)``, the data term on the
    labelled batch alone (whole, not in micro-batches), the physics terms on ``x`` (``y`` unread). ``window``
    (``training.window``): a recurrent model rolls out as many steps as ``y`` holds."""
    loss_fn = losses.LOSSES[loss_name]
    kw: dict[str, int] = {"d": dims} if loss_name == "h1" else {}
    terms = terms or LossTerms()
    weighted = [(getattr(terms, name), physics.terms()[name]) for name in PHYSICS_TERMS if getattr(terms, name)]
    on_batch = terms.data and not labelled  # the data term on the same batch as the physics

    def data_loss(params, stats, x, y):
        steps = {"steps": y.shape[-1]} if window else {}
        return terms.data * loss_fn(op.predict(params, stats, x, **steps), y, **kw)

    def loss(params, stats, x, y):
        total = data_loss(params, stats, x, y) if on_batch else 0.0
        if weighted:  # the terms read the decoded field or the grid's outputs (.physics), made once for all
            output = estimate.physics_output(op, physics, params, stats, x)
            for weight, term in weighted:
                total = total + weight * term(output, x)
        return total

    value_and_grad = accumulated(loss, micro)
    data_grad = jax.value_and_grad(data_loss)

    def gradient(params, stats, x, y, xl, yl):
        if not labelled:
            return value_and_grad(params, stats, x, y)
        value, grads = data_grad(params, stats, xl, yl)
        if weighted:
            more = value_and_grad(params, stats, x, y)
            value, grads = jax.tree_util.tree_map(jnp.add, (value, grads), more)
        return value, grads

    def step(state, x, y, xl=None, yl=None):
        value, grads = gradient(state["params"], state["stats"], x, y, xl, yl)
        updates, opt = tx.update(grads, state["opt"], state["params"])
        params = optax.apply_updates(state["params"], updates)
        return average.step({**state, "params": params, "opt": opt, "epoch": state["epoch"]}, state["epoch"]), value

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
    errs: list[np.ndarray] = []
    kept: list[np.ndarray] = []
    for x, y in split.batches(batch_size):
        pred, e = run(state["params"], state["stats"], x, y)
        errs.append(np.asarray(e))
        if sum(len(k) for k in kept) < keep:
            kept.append(np.asarray(pred))
    preds = np.concatenate(kept)[:keep] if kept else None
    return float(np.mean(np.concatenate(errs))), preds


def derived_physics(cfg: FnoCase):
    """The physics whose derived fields (the plate's moments) the final evaluation scores, when the generator has
    physics (:data:`.physics.PHYSICS`) and the model's output is a function of the coordinates (``model.type`` fno or
    deeponet: ``ModelKind.field``); else None."""
    if cfg.data.generator not in PHYSICS or not cfg.kind.field or not PHYSICS[cfg.data.generator].derived_names:
        return None
    return physics_for(cfg)


def derived_fields(op: Operator, physics, grid: str):
    """``(params, stats, x) -> {name: (batch, s..., 1)}``: the physics' derived fields
    (:meth:`.physics.Plate.derived`: derivatives of the decoded output by the Taylor engine) at the points of the
    input grid, named by ``physics.derived_names``. The points are taken one row of the first axis at a time
    (``lax.map``), which bounds the memory of the series' Taylor coefficients."""

    def fields(params, stats, x):
        field = op.field(params, stats, x)
        shape = x.shape[1:-1]
        rows = jnp.asarray(coordinates(shape[0], len(shape), grid).reshape(shape[0], -1, len(shape)), x.dtype)
        values = jax.lax.map(lambda points: physics.derived(field, points), rows)  # each (s_1, rest, batch)
        return {name: jnp.moveaxis(values[name], -1, 0).reshape(x.shape[:-1] + (1,))
                for name in physics.derived_names}

    return fields


def make_derived(op: Operator, physics, grid: str):
    """``(params, stats, x, reference) -> {name: per-sample rel. L2}``, jitted: :func:`derived_fields` against
    ``reference (batch, s..., k)``, its channels in the order of ``physics.derived_names``."""
    fields = derived_fields(op, physics, grid)

    @jax.jit
    def run(params, stats, x, reference):
        values = fields(params, stats, x)
        return {name: losses.rel_l2(values[name], reference[..., i:i + 1].astype(values[name].dtype), reduce=False)
                for i, name in enumerate(physics.derived_names)}

    return run


def evaluate_derived(cfg: FnoCase, run, state, split: data.Split, resolution: int, physics) -> dict:
    """Mean test rel. L2 of each derived field over ``split`` (the test samples at ``resolution``), against the
    generator's own values for them, solved again for the same loads (:func:`.data.solve_test`)."""
    inputs, reference = data.solve_test(cfg.data, resolution, **physics.derived_params())
    stored, _ = split.read(np.arange(len(split)))
    if stored.shape != inputs.shape or not np.allclose(stored, inputs.astype(stored.dtype), rtol=1e-5,
                                                       atol=1e-6 * np.abs(inputs).max()):
        raise UserError(f"{cfg.data.path}: the test inputs at s = {resolution} are not the loads its settings give; "
                        "make it again with `sciml datagen CASE.yaml --force`")
    errs: dict[str, list] = {name: [] for name in physics.derived_names}
    for i in range(0, len(split), cfg.evaluation.batch_size):
        rows = slice(i, i + cfg.evaluation.batch_size)
        for name, e in run(state["params"], state["stats"], stored[rows], reference[rows]).items():
            errs[name].append(np.asarray(e))
    return {name: float(np.mean(np.concatenate(e))) for name, e in errs.items()}


def make_estimate(op: Operator, physics):
    """``(params, stats, x, y) -> (per-sample error estimate, per-sample true rel. L2)`` of the output's first
    channel, jitted: the physics' :meth:`~.physics.Plate.estimate` of the decoded field or of the output on the
    grid (``physics.reads``; :func:`.estimate.estimator`), on the grid of ``physics.resolution``."""
    predict = estimate.estimator(op, physics)

    @jax.jit
    def run(params, stats, x, y):
        pred, guess = predict(params, stats, x)
        return guess, losses.rel_l2(pred[..., :1], y[..., :1], reduce=False)

    return run


def evaluate_estimate(run, state, split: data.Split, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(estimates, true errors)`` of the test samples of ``split``, each ``(n,)`` (:func:`make_estimate`'s)."""
    pairs = [run(state["params"], state["stats"], x, y) for x, y in split.batches(batch_size)]
    return np.concatenate([np.asarray(p[0]) for p in pairs]), np.concatenate([np.asarray(p[1]) for p in pairs])


def estimate_metrics(guess: np.ndarray, true: np.ndarray) -> dict[str, float]:
    """``{"estimate": the mean estimate, "estimate_spearman": the rank correlation of the estimates with the true
    errors}``."""
    from scipy.stats import spearmanr  # on use: scipy's statistics for one number

    rank = spearmanr(guess, true).statistic if len(true) > 1 else np.nan
    return {"estimate": float(np.mean(guess)), "estimate_spearman": float(rank)}


def make_decoded(op: Operator, resolution: int, fine: int, grid: str):
    """``(params, stats, x, y) -> (pred, per-sample rel. L2)``, jitted, for inputs ``x`` on the ``fine`` grid: the
    operator run on the training grid (``x`` subsampled to its ``resolution`` points, :func:`.generators.factor`;
    the case's check makes every finer test grid hold them) and its output decoded at the fine grid's points
    (:class:`sciml.nn.fno_field.Field`), the super-resolution that needs no finer input (``evaluation.decoded``)."""
    stride = factor(fine, resolution, grid)
    assert stride is not None, "FnoCase.check(): evaluation.decoded's test grids hold the training grid's points"
    line = coordinates(fine, 1, grid)[:, 0]

    @jax.jit
    def run(params, stats, x, y):
        d = x.ndim - 2
        field = op.field(params, stats, subsample(x, stride, d))
        points = jnp.asarray(fno_field.grid_points([line] * d), x.dtype)
        pred = jnp.moveaxis(field.on_grid([line] * d, 0)(points), -2, 0).reshape(y.shape)
        return pred, losses.rel_l2(pred, y.astype(pred.dtype), reduce=False)

    return run


def initial_state(cfg: FnoCase, op: Operator, tx: optax.GradientTransformation, moments) -> dict:
    """The training state before the first step: parameters from ``cfg.seed``, the optimiser's state, the
    scalings from the training set's ``moments`` (``(x_mean, x_std, y_mean, y_std)``) and, with weight
    averaging, the average."""
    params = op.init(jax.random.PRNGKey(cfg.seed))
    state = {"params": params, "opt": tx.init(params), "stats": op.stats(*moments), "epoch": jnp.asarray(0, jnp.int32)}
    return cfg.training.average.rule().init(state)


# compiled functions by what they depend on, so that runs in one process (tests, notebooks, studies) that
# share a model and optimiser compile once
_CACHE: dict[str, tuple] = {}


def functions(cfg: FnoCase, c_in: int, c_out: int, per_epoch: int, grid: np.ndarray | None = None):
    """``(operator, schedule, optimiser, jitted step, jitted eval)`` for a case, cached by their inputs; ``grid``:
    the training split's coordinates (:func:`.operators.build`; a DeepONet's trunk reads them)."""
    training = to_dict(cfg.training)
    training.pop("checkpoint_every")
    if not schedules.KINDS[cfg.training.schedule.type].spans:
        training.pop("epochs")
    key = json.dumps([to_dict(cfg.model), cfg.dtype, cfg.data.generator, cfg.data.t_in, cfg.data.t_out, training,
                      c_in, c_out, per_epoch, cfg.data.n_labelled is not None,
                      None if grid is None else hashlib.sha256(np.ascontiguousarray(grid).tobytes()).hexdigest()],
                     sort_keys=True)
    if key not in _CACHE:
        op = operators.build(cfg, c_in, c_out, grid)
        sched = schedule(cfg, per_epoch)
        tx = optimizer(cfg, sched)
        gen = cfg.source
        step = make_step(op, tx, cfg.training.loss, gen.dims, cfg.training.micro(jax.default_backend()),
                         cfg.training.average.rule(), cfg.training.terms, physics_of(cfg),
                         cfg.data.n_labelled is not None, cfg.training.window is not None)
        _CACHE[key] = (op, sched, tx, step, make_eval(op))
        while len(_CACHE) > 8:
            _CACHE.pop(next(iter(_CACHE)))
    return _CACHE[key]


def physics_of(cfg: FnoCase):
    """The case's physics (:data:`.physics.PHYSICS`) when its loss has a physics term, else None."""
    return physics_for(cfg) if cfg.training.terms.physics else None


def physics_for(cfg: FnoCase, resolution: int | None = None):
    """The generator's physics (:data:`.physics.PHYSICS`) for the case's parameters on the grid of ``resolution``
    points (default: the training's physics grid)."""
    grid = cfg.data.physics_grid if resolution is None else resolution
    return PHYSICS[cfg.source.name].of(cfg.data.params, grid, cfg.training.autodiff)


def moments(cfg: FnoCase, train_set: data.Split):
    """The scalings' moments ``(x_mean, x_std, y_mean, y_std)``: the training set's (the outputs' of its
    ``data.n_labelled`` labelled samples alone); for a physics-only loss (``terms.data = 0``) the outputs' come
    from the physics (mean 0, its deflection scale), not from solved samples."""
    mx, sx, my, sy = train_set.moments()
    if cfg.training.terms.data and cfg.data.n_labelled is not None:
        _, _, my, sy = train_set.moments(n=cfg.data.n_labelled)
    if cfg.training.terms.data:
        return mx, sx, my, sy
    scale = physics_for(cfg).output_scale(mx.mean(), sx.mean())
    return mx, sx, np.zeros_like(my), np.full_like(sy, scale)


def dihedral(x: np.ndarray, y: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Samples ``(batch, s, s, channels)`` of inputs ``x`` and outputs ``y``, each sample ``i`` turned by element
    ``g[i]`` (0..7) of the square's symmetry group: ``g % 4`` quarter turns, then a reflection where ``g >= 4``
    (``training.augment: dihedral``)."""
    assert x.shape[1] == x.shape[2] and y.shape[1] == y.shape[2], "a square grid (FnoCase.check)"

    def turn(a, k):
        a = np.rot90(a, k % 4, axes=(0, 1))
        return a[::-1] if k >= 4 else a

    return (np.stack([turn(a, k) for a, k in zip(x, g)]), np.stack([turn(b, k) for b, k in zip(y, g)]))


def windows(x: np.ndarray, y: np.ndarray, starts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Trajectories split as inputs ``x (batch, ..., t_in)`` and outputs ``y (batch, ..., t_out)``, cut to
    windows: sample ``i``'s ``k`` steps from ``starts[i]`` (0 .. t_out - k) of ``y``, the ``t_in`` steps before
    them its inputs (``training.window``)."""
    t_in = x.shape[-1]
    w = np.concatenate([x, y], axis=-1)
    cut = lambda a, s0, n: a[..., s0:s0 + n]
    return (np.stack([cut(a, s0, t_in) for a, s0 in zip(w, starts)]),
            np.stack([cut(a, s0 + t_in, k) for a, s0 in zip(w, starts)]))


def labelled_size(cfg: FnoCase) -> int:
    """Samples of the data term's own batch with ``data.n_labelled`` (0 without)."""
    n = cfg.data.n_labelled
    return 0 if n is None else min(cfg.training.batch_size, n)


def labelled_batches(n: int, size: int, rng: np.random.Generator):
    """Endless minibatches of ``size`` of the samples ``0 .. n-1``: random permutations of them one after
    another, cut ``size`` at a time (every sample once before any twice)."""
    pool = np.empty(0, int)
    while True:
        while len(pool) < size:
            pool = np.concatenate([pool, rng.permutation(n)])
        batch, pool = pool[:size], pool[size:]
        yield batch


def layout(cfg: FnoCase):
    """``(mesh, place_state)``: the device mesh and how the state is laid out on it."""
    mesh = parallel.mesh(cfg.parallel)
    size = parallel.data_size(mesh)
    if cfg.training.batch_size % size:
        raise ConfigError(f"{cfg.training.batch_size} is not a multiple of the {size} devices on the data axis "
                          f"(parallel)", key="training.batch_size")
    if labelled_size(cfg) % size:
        raise ConfigError(f"the labelled batch, min(training.batch_size, data.n_labelled) = {labelled_size(cfg)}, "
                          f"is not a multiple of the {size} devices on the data axis (parallel)", key="data.n_labelled")
    if parallel.channel_size(mesh) > 1:
        return mesh, lambda state: parallel.place(state, mesh, partition)
    return mesh, lambda state: parallel.replicate(state, mesh)


def train(cfg: FnoCase, out: str, resume: str | None = None, quiet: bool = False) -> dict:
    """Train the case into run folder ``out`` (``resume``: continue from that folder's latest checkpoint)."""
    with Policy.of(cfg.dtype).precision():  # float64 off (or on) inside; the caller's setting comes back after
        return loop.run(cfg, lambda: _Fno(cfg, quiet), out, resume, quiet)


class _Fno:
    """The FNO's side of :func:`sciml.loop.run`: epochs of minibatches (the loop's chunks), the test error at
    the training resolution after each, evaluation at every test resolution at the end."""

    unit = "batch"

    def __init__(self, cfg: FnoCase, quiet: bool):
        self.cfg, self.quiet = cfg, quiet
        self.np_dtype = Policy.of(cfg.dtype).param_dtype  # inputs come in the parameters' dtype
        self.mesh, self.place_state = layout(cfg)
        data.check(cfg.data, case=cfg.case)
        self.train_set, self.tests = data.open_splits(cfg.data.path, cfg.data.resolutions)
        self.batch_set = data.physics_split(cfg.data, self.train_set)  # the epoch's minibatches
        self.per_epoch = self.batch_set.num_batches(cfg.training.batch_size, drop_last=True)
        self.total = cfg.training.epochs * self.per_epoch
        self.op, self.sched, self.tx, self.step_fn, self.eval_fn = functions(
            cfg, self.train_set.shapes[0][-1], self.train_set.shapes[1][-1], self.per_epoch, self.train_set.grid)
        self.rows = parallel.local_rows(cfg.training.batch_size)
        self.labelled_rows = parallel.local_rows(labelled_size(cfg))
        self.average = cfg.training.average.rule()
        self.end_epoch = jax.jit(self.average.epoch)
        self.tested = {"test_rel_l2": self.average.key}  # metrics column -> the state entry whose parameters it tests
        if self.average.key != "params":
            self.tested["test_rel_l2_raw"] = "params"
        self.epoch, self.initial, self.warm, self.resumed, self.params = 0, None, False, False, 0
        self.epoch_times: list[float] = []  # wall seconds of each epoch's steps
        self.epoch_cpu: list[float] = []  # and CPU seconds

    def put(self, x, y):
        return parallel.shard((np.asarray(x, self.np_dtype), np.asarray(y, self.np_dtype)), self.mesh)

    def labelled(self, epoch: int):
        """The data term's batches of the epoch (``data.n_labelled``), each put on the devices: ``()`` a step
        without."""
        n = self.cfg.data.n_labelled
        if n is None:
            while True:
                yield ()
        turns = np.random.default_rng([self.cfg.seed, epoch, 3])  # training.augment's draws for the labelled batches
        for index in labelled_batches(n, labelled_size(self.cfg), np.random.default_rng([self.cfg.seed, epoch, 1])):
            x, y = self.train_set.read(index[self.labelled_rows])
            if self.cfg.training.augment == "dihedral":
                x, y = dihedral(x, y, turns.integers(0, 8, len(x)))
            yield self.put(x, y)

    def cut(self, x, y, rng: np.random.Generator):
        """The batch's windows (``training.window``, starts drawn from ``rng``), or the batch as it is."""
        k = self.cfg.training.window
        return (x, y) if k is None else windows(x, y, rng.integers(0, y.shape[-1] - k + 1, len(x)), k)

    def host(self, state, key: str | None = None):
        """The parameters to evaluate (the state's ``key``, by default the average's) and the stats, on the host."""
        return parallel.to_host({"params": state[key or self.average.key], "stats": state["stats"]})

    def init(self):
        return initial_state(self.cfg, self.op, self.tx, moments(self.cfg, self.train_set))

    def template(self, attrs: dict):
        return self.init()

    def start(self, state, attrs: dict):
        if attrs:  # restored from a checkpoint
            state = jax.tree_util.tree_map(jnp.asarray, state)
        self.epoch, self.resumed, self.params = int(state["epoch"]), bool(attrs), fno.count(state["params"])
        state = self.place_state(state)
        if parallel.channel_size(self.mesh) > 1:  # keep the channel layout from step to step (XLA may pick another)
            layout = jax.tree_util.tree_map(lambda a: a.sharding, state)
            self.step_fn = jax.jit(self.step_fn, out_shardings=(layout, parallel.replicated(self.mesh)))
            self.end_epoch = jax.jit(self.end_epoch, out_shardings=layout)
        return state, self.epoch * self.per_epoch

    def attrs(self) -> dict:
        return {"epoch": self.epoch, "step": self.epoch * self.per_epoch}

    def _warm_up(self, state, run: loop.Run) -> None:
        """Compile the step (its result dropped) and the evaluation; the test error before training."""
        cfg = self.cfg
        with run.compiling():
            first = self.cut(*self.batch_set.read(np.arange(cfg.training.batch_size)[self.rows]),
                             np.random.default_rng(0))
            jax.block_until_ready(self.step_fn(state, *self.put(*first), *next(self.labelled(0))))
            if not self.resumed:
                self.initial, _ = evaluate(self.eval_fn, self.host(state), self.tests[cfg.data.resolution],
                                           cfg.evaluation.batch_size)
        self.warm = True

    def advance(self, state, run: loop.Run) -> loop.Chunk | None:
        cfg, epoch = self.cfg, self.epoch
        if not self.warm:
            self._warm_up(state, run)
        if epoch >= cfg.training.epochs:
            return None
        te, ce, losses = time.perf_counter(), time.process_time(), []
        order, labelled = np.random.default_rng([cfg.seed, epoch]), self.labelled(epoch)
        turns = np.random.default_rng([cfg.seed, epoch, 2])  # training.augment's draws, apart from the order's
        starts = np.random.default_rng([cfg.seed, epoch, 4])  # training.window's
        for x, y in self.batch_set.batches(cfg.training.batch_size, order, drop_last=True, rows=self.rows):
            if cfg.training.augment == "dihedral":
                x, y = dihedral(x, y, turns.integers(0, 8, len(x)))
            x, y = self.cut(x, y, starts)
            state, loss = self.step_fn(state, *self.put(x, y), *next(labelled))
            losses.append(loss)
            run.tick()
        chunk = loop.Chunk(state, np.asarray(jnp.stack(losses)), good=f"end of epoch {epoch}",
                           where=lambda i: f"in epoch {epoch + 1} (batch {i + 1} of {self.per_epoch})")
        train_s, train_cpu = time.perf_counter() - te, time.process_time() - ce
        if not np.isfinite(chunk.losses).all():
            return chunk
        self.epoch = epoch = epoch + 1
        self.epoch_times.append(train_s)
        self.epoch_cpu.append(train_cpu)
        state = {**state, "epoch": parallel.replicate(np.int32(epoch), self.mesh)}
        chunk.state = state = self.end_epoch(state, epoch)
        row = {"epoch": epoch, "step": epoch * self.per_epoch, "loss": float(chunk.losses.mean()),
               **dict.fromkeys(self.tested, float("nan")), "eval_s": 0.0}
        if epoch % cfg.evaluation.every == 0 or epoch == cfg.training.epochs:
            tv = time.perf_counter()
            for column, key in self.tested.items():
                row[column], _ = evaluate(self.eval_fn, self.host(state, key), self.tests[cfg.data.resolution],
                                          cfg.evaluation.batch_size)
            row["eval_s"] = time.perf_counter() - tv
        row.update({"lr": float(self.sched(epoch * self.per_epoch - 1)), "epoch_s": train_s,
                    "wall_time_s": run.wall()})
        chunk.row, chunk.postfix = row, {"test": f"{row['test_rel_l2']:.3e}", "s_epoch": f"{train_s:.2f}"}
        chunk.latest = epoch % cfg.training.checkpoint_every == 0 or epoch == cfg.training.epochs
        return chunk

    def summary(self) -> dict:
        trained, times = len(self.epoch_times) * self.per_epoch, self.epoch_times
        return {"epochs": self.epoch, "s_per_epoch": round(float(np.mean(times)) if times else 0.0, 4),
                "steps_per_s": round(trained / max(sum(times), 1e-9), 3) if trained else 0.0,
                "steps_per_cpu_s": round(trained / max(sum(self.epoch_cpu), 1e-9), 3) if trained else 0.0,
                "initial_rel_l2": self.initial, "params": self.params, "dataset": self.cfg.data.path,
                "parallel": parallel.describe(self.mesh)}

    def finish(self, state, run: loop.Run, out: str | None) -> dict:
        cfg = self.cfg
        results = _final_evaluation(cfg, self.eval_fn, self.host(state), self.tests, out)
        physics = derived_physics(cfg)
        if physics is not None:
            derive = make_derived(self.op, physics, cfg.source.grid)
            for r, split in self.tests.items():
                suffix = "" if r == cfg.data.resolution else f"_{r}"
                for name, err in evaluate_derived(cfg, derive, self.host(state), split, r, physics).items():
                    results[f"rel_l2_{name}{suffix}"] = err
        calibration = {}
        if cfg.evaluation.estimate:  # the physics' error estimate beside the true error, and its calibration
            for r, split in self.tests.items():
                suffix = "" if r == cfg.data.resolution else f"_{r}"
                pair = evaluate_estimate(make_estimate(self.op, physics_for(cfg, r)), self.host(state), split,
                                         cfg.evaluation.batch_size)
                results.update({f"{name}{suffix}": v for name, v in estimate_metrics(*pair).items()})
                calibration[str(r)] = estimate.calibrate(*pair)
        if cfg.evaluation.decoded:
            grid = cfg.source.grid
            for r, split in self.tests.items():
                if r != cfg.data.resolution:
                    decoded = make_decoded(self.op, cfg.data.resolution, r, grid)
                    results[f"rel_l2_{r}_decoded"], _ = evaluate(decoded, self.host(state), split,
                                                                 cfg.evaluation.batch_size)
        if out is not None and run.rows:
            plots.save(partial(fno_plots.history, run.rows, f"{cfg.case}: training"),
                       os.path.join(out, "plots", "history.png"), dpi=90)
        last = last_k(run.rows, cfg.evaluation.last_k)
        if not self.quiet:
            s_per_epoch = float(np.mean(self.epoch_times)) if self.epoch_times else 0.0
            print(f"{self.epoch} epochs, {s_per_epoch:.3f} s/epoch; test " +
                  ", ".join(f"{k} {v:.4f}" for k, v in results.items()) + f"; {describe(last)}")
        return {"metrics": results, "last_k": last, **({"estimate_calibration": calibration} if calibration else {})}


def last_k(rows: list[dict], k: int) -> dict:
    """The spread of the test error at the training resolution (``rel_l2``) over the last ``k`` evaluations
    (metrics rows with a ``test_rel_l2``): their number ``n`` (fewer than ``k`` when the run made fewer), mean,
    standard deviation (of those ``n`` values, ddof 0), min and max."""
    errs = np.array([r["test_rel_l2"] for r in rows if np.isfinite(r.get("test_rel_l2", np.nan))][-k:])
    stats = {"mean": errs.mean(), "std": errs.std(), "min": errs.min(), "max": errs.max()} if errs.size else {}
    return {"metric": "rel_l2", "k": k, "n": int(errs.size), **{name: float(v) for name, v in stats.items()}}


def describe(spread: dict) -> str:
    """:func:`last_k`'s result in words."""
    n, k = spread["n"], spread["k"]
    if not n:
        return f"no evaluation for the last {k}"
    return (f"last {n}{f' (of {k} asked)' if n < k else ''} evaluations of {spread['metric']}: mean "
            f"{spread['mean']:.4g} ± {spread['std']:.2g} (min {spread['min']:.4g}, max {spread['max']:.4g})")


def _final_evaluation(cfg: FnoCase, eval_fn, state, tests: dict, out: str | None) -> dict:
    """Test rel. L2 at every resolution; fields.h5 and plots of the first samples (``out`` None: no files)."""
    keep = cfg.evaluation.plots
    evaluated = {r: evaluate(eval_fn, state, split, cfg.evaluation.batch_size, keep=max(keep, 1) if out else 0)
                 for r, split in tests.items()}
    results = {"rel_l2" if r == cfg.data.resolution else f"rel_l2_{r}": err for r, (err, _) in evaluated.items()}
    if out is None:
        return results
    samples = {}
    for r, (err, preds) in evaluated.items():
        split = tests[r]
        x, y = split.read(np.arange(len(preds)))
        samples[r] = (err, split.grid, {"inputs": x, "outputs": y, "prediction": preds, "error": preds - y})
    fields_h5.write(os.path.join(out, "fields.h5"), cfg.case, cfg.source.name, cfg.data.resolution, samples)
    for r, (_, grid, arrays) in samples.items():
        for i in range(min(keep, len(arrays["prediction"]))):
            plots.save(partial(fno_plots.sample, grid, arrays["inputs"][i], arrays["outputs"][i],
                               arrays["prediction"][i], f"{cfg.case}, s = {r}, test sample {i}"),
                       os.path.join(out, "plots", f"test_{r}_{i}.png"), dpi=90)
    return results
