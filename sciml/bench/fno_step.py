"""Seconds per epoch of an FNO's training step, per variant of the step, measured in one process.

Each variant is the case with a few overrides (``name=key=value,key=value``; a key a variant leaves out keeps
the case's value, so the default variants set both ``model.spectral`` and ``training.micro_batch``). The first
variant is the baseline of the ratios, so machine load affects every variant alike. By default it is the step as
it was when issue 15 was filed: a variant named ``before`` runs XLA's FFT over the whole batch with the
pointwise products written over the field's leading axes (``x @ W + b`` on ``(batch, n_1, n_2, c)``, which XLA
differentiates through a transposed copy of the field; today's layers flatten them, :func:`_as_filed`). A
variant named ``series`` differentiates a plate case's decoded field by its series at the points, as the terms did
before they took its local polynomials on the grid (:func:`_at_points`): ``sciml bench fno-step --case
plate_operator --variant series= --variant grid=``. The data
are random (no dataset is needed) with the case's shapes: ``(n_train + n_physics) / batch_size`` steps make an
epoch (the training run's epoch: every training input, and the unsolved ones of ``data.n_physics``). The
variants' rounds are interleaved, and each row gives the median wall time and the CPU seconds per step (the
latter moves less when other processes share the cores). The first step's loss of each variant is compared with
the baseline's: every variant is the same step, so the difference is rounding.

How far the hardware lets the step go: each variant's work per step is counted on its jaxpr (the matrix
products and FFTs, :func:`jaxpr_work`: a scan's body as often as it runs, which XLA's own count does not do),
and the machine's rate is the best of a few float32 matrix products of 2048 x 2048 measured in the same
process. Each row gives the rate its time means, as a fraction of the matrix products' rate; the last line, the
rate that four times the baseline's speed would need at the least work of any variant. Run: ``sciml bench
fno-step`` (the paper's Darcy sizes).
"""
from __future__ import annotations

import argparse
import contextlib
import math
import statistics
import time

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np

from sciml.errors import UserError

BEFORE = "before"  # the variant traced with the products as they were when issue 15 was filed (_as_filed)
SERIES = "series"  # the variant whose plate terms differentiate the series at the points (_at_points)
# the paper's batch of 20 and zero padding in each (the case's own recipe may differ): the step as it was when
# issue 15 was filed is the first
DEFAULT_VARIANTS = tuple(f"{name}=model.spectral={method},training.micro_batch={micro},training.batch_size=20,"
                         "model.pad_fill=zeros"
                         for name, method, micro in [(BEFORE, "fft", "null"), ("fft", "fft", "null"),
                                                     ("dft", "dft", "null"), ("dft-micro1", "dft", 1),
                                                     ("dft-micro2", "dft", 2), ("dft-micro4", "dft", 4)])


@contextlib.contextmanager
def _as_filed():
    """The FNO's pointwise products as they were when issue 15 was filed, ``x @ W + b`` over all the leading axes
    of the field (variant :data:`BEFORE`)."""
    from sciml.nn import fno

    affine = fno._affine
    fno._affine = lambda layer, x: x @ layer["W"] + layer["b"]
    try:
        yield
    finally:
        fno._affine = affine


@contextlib.contextmanager
def _at_points():
    """The plate's physics terms on the decoded field's series at the points, not its local polynomials on the
    grid (:meth:`sciml.nn.fno_field.Field.on_grid`; variant :data:`SERIES`): the derivatives as they were before."""
    from sciml.solvers.fno import physics

    on_grid = physics._on_grid
    physics._on_grid = lambda field, n, order: field
    try:
        yield
    finally:
        physics._on_grid = on_grid


# variants by name whose step is traced with a part of the code as it was (the rest run as they are)
_AS_IT_WAS = {BEFORE: _as_filed, SERIES: _at_points}


@contextlib.contextmanager
def _traced_as(name: str):
    """While the variant ``name``'s step is built and traced: the code as :data:`_AS_IT_WAS` says for it, with its
    own compiled step (the solver's cache of steps set aside meanwhile); other variants run as they are."""
    if name not in _AS_IT_WAS:
        yield
        return
    from sciml.solvers.fno import run

    cache = dict(run._CACHE)
    run._CACHE.clear()
    try:
        with _AS_IT_WAS[name]():
            yield
    finally:
        run._CACHE.clear()
        run._CACHE.update(cache)


def _variant(text: str) -> tuple[str, list[str]]:
    name, _, overrides = text.partition("=")
    return name, [o for o in overrides.split(",") if o]


def _shapes(cfg) -> list[tuple[int, ...]]:
    """The step's array shapes, channels last (the dataset's layout): one minibatch's inputs and outputs on the
    physics terms' grid, then with ``data.n_labelled`` the data term's own batch on the training grid."""
    from sciml.solvers.fno.run import labelled_size

    gen = cfg.source
    channels = (cfg.data.t_in, cfg.data.t_out) if gen.trajectory else (1, 1)
    batches = [(cfg.training.batch_size, cfg.data.physics_grid)]
    if cfg.data.n_labelled is not None:
        batches.append((labelled_size(cfg), cfg.data.resolution))
    return [(n, *(s,) * gen.dims, c) for n, s in batches for c in channels]


def build(case: str, overrides: list[str]):
    """``(step, state, arrays, steps_per_epoch)`` for a case with overrides, on random data: ``step(state,
    *arrays)`` is one training step."""
    from sciml import cases, parallel
    from sciml.solvers.fno import run
    from sciml.solvers.fno.config import FnoCase

    cfg = cases.load(case, overrides).config
    if not isinstance(cfg, FnoCase):
        raise UserError(f"{case}: not an FNO case (solver: fno)")
    if not cfg.kind.fourier:
        raise UserError(f"{case}: times an FNO's step; model.type {cfg.model.type} is not one")
    shapes = _shapes(cfg)
    per_epoch = cfg.data.physics_inputs // cfg.training.batch_size
    op, _, tx, step, _ = run.functions(cfg, shapes[0][-1], shapes[1][-1], per_epoch)
    rng = np.random.default_rng(cfg.seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    x, y = arrays[-2:]  # the scalings' moments from the data term's batch
    axes = tuple(range(x.ndim - 1))  # all but the channels
    state = run.initial_state(cfg, op, tx, (x.mean(axes), x.std(axes), y.mean(axes), y.std(axes)))
    mesh, place = run.layout(cfg)  # the driver's layout: the batch split over the devices of parallel.mesh
    return step, place(state), parallel.shard(tuple(arrays), mesh), per_epoch


def _inner(value) -> list:
    """The jaxprs a primitive's parameter holds (a jaxpr, a closed one, or a sequence of them)."""
    items = value if isinstance(value, (tuple, list)) else [value]
    return [v.jaxpr if isinstance(v, jex.ClosedJaxpr) else v for v in items
            if isinstance(v, (jex.ClosedJaxpr, jex.Jaxpr))]


def jaxpr_work(jaxpr) -> float:
    """Floating-point operations of the matrix products and FFTs of a jaxpr: ``2 m n k`` per real product (four
    times that for complex), ``5 n log2 n`` per complex transform of n points; a scan's body counted ``length``
    times, a loop of unknown trip count once, a conditional by its largest branch. Elementwise work is left out."""
    total = 0.0
    for eqn in jaxpr.eqns:
        name, params = eqn.primitive.name, eqn.params
        if name == "dot_general":
            (contract, _), _ = params["dimension_numbers"]
            lhs = eqn.invars[0].aval
            k = math.prod(lhs.shape[i] for i in contract)
            total += 2.0 * math.prod(eqn.outvars[0].aval.shape) * k * (4 if jnp.iscomplexobj(lhs) else 1)
        elif name == "fft":
            n = math.prod(params["fft_lengths"])
            spectrum = next(v.aval for v in (*eqn.invars, *eqn.outvars) if jnp.iscomplexobj(v.aval))
            total += 5.0 * spectrum.size * np.log2(max(n, 2.0))  # a real transform's spectrum: half the points
        elif name == "cond":
            total += max(jaxpr_work(j) for j in _inner(params["branches"]))
        else:
            inner = sum(jaxpr_work(j) for v in params.values() for j in _inner(v))
            total += inner * (params["length"] if name == "scan" else 1)
    return total


def matmul_rate(n: int = 2048, repeats: int = 5) -> float:
    """GFLOP/s of this machine's float32 matrix products: the best of ``repeats`` products of n x n."""
    a = jax.random.normal(jax.random.PRNGKey(0), (n, n), jnp.float32)
    product = jax.jit(lambda a: a @ a)
    jax.block_until_ready(product(a))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(product(a))
        best = min(best, time.perf_counter() - t0)
    return 2 * n**3 / best / 1e9


def measure(variants: dict, case: str, common: list[str], steps: int, rounds: int, warmup: int = 1) -> list[dict]:
    """Each variant's step timed in ``rounds`` rounds of ``steps`` consecutive steps, the variants alternating;
    each round first runs ``warmup`` untimed steps, since the variant before it has left the caches and the
    allocator to its own arrays (an epoch's steps run back to back)."""
    built, rows = {}, []
    for name, overrides in variants.items():
        with _traced_as(name):
            step, state, arrays, per_epoch = build(case, [*common, *overrides])
            t0 = time.perf_counter()
            _, loss = jax.block_until_ready(step(state, *arrays))  # compiles
            compile_s = time.perf_counter() - t0
            gflop = jaxpr_work(jax.make_jaxpr(step)(state, *arrays).jaxpr) / 1e9
        built[name] = (step, state, arrays)
        rows.append({"variant": name, "compile_s": compile_s, "loss": float(loss), "wall": [], "cpu": [],
                     "per_epoch": per_epoch, "gflop": gflop})
    for _ in range(rounds):
        for row in rows:
            step, state, arrays = built[row["variant"]]
            for _ in range(warmup):
                jax.block_until_ready(step(state, *arrays))
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(steps):
                out = step(state, *arrays)
            jax.block_until_ready(out)
            row["wall"].append((time.perf_counter() - w0) / steps)
            row["cpu"].append((time.process_time() - c0) / steps)
    for row in rows:
        row["s_per_step"], row["cpu_per_step"] = statistics.median(row["wall"]), statistics.median(row["cpu"])
        row["s_per_epoch"] = row["s_per_step"] * row["per_epoch"]
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="sciml bench fno-step", description=__doc__.splitlines()[0])
    p.add_argument("--case", default="darcy_fno", help="a case file or name (default: the paper's Darcy sizes)")
    p.add_argument("--variant", action="append", metavar="NAME=KEY=VALUE[,KEY=VALUE]",
                   help="a variant (repeatable; the first is the baseline); default: " + "; ".join(DEFAULT_VARIANTS))
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="an override for every variant")
    p.add_argument("--steps", type=int, default=3, help="steps per timed round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--warmup", type=int, default=1, help="untimed steps at the start of each round")
    args = p.parse_args(argv)
    variants = dict(_variant(v) for v in (args.variant or DEFAULT_VARIANTS))
    rows = measure(variants, args.case, args.set, args.steps, args.rounds, args.warmup)
    peak, base = matmul_rate(), rows[0]
    print(f"FNO training step: {args.case} {' '.join(args.set)}; {rows[0]['per_epoch']} steps per epoch; "
          f"{jax.devices()[0].device_kind}, {jax.device_count()} device(s); float32 matrix products here: "
          f"{peak:.0f} GFLOP/s")
    print(f"{'variant':<14} {'s/epoch':>9} {'speed-up':>9} {'cpu s/step':>11} {'cpu ratio':>10} {'compile s':>10} "
          f"{'loss - base':>12} {'GFLOP':>8} {'GFLOP/s':>8} {'of peak':>8}")
    for r in rows:
        rate = r["gflop"] / r["s_per_step"]
        print(f"{r['variant']:<14} {r['s_per_epoch']:>9.3g} {base['s_per_step'] / r['s_per_step']:>8.2f}x "
              f"{r['cpu_per_step']:>11.3f} {base['cpu_per_step'] / r['cpu_per_step']:>9.2f}x {r['compile_s']:>10.1f} "
              f"{r['loss'] - base['loss']:>12.1e} {r['gflop']:>8.3g} {rate:>8.3g} {rate / peak:>7.1%}")
    least = min(r["gflop"] for r in rows)
    need = 4 * least / base["s_per_step"]
    print(f"4x the baseline ({base['s_per_epoch'] / 4:.3g} s/epoch) needs {need:.3g} GFLOP/s at the least work of a "
          f"variant ({least:.3g} GFLOP per step): {need / peak:.0%} of the matrix products' rate")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
