"""Timings of the Taylor engine against nested forward mode, ``jax.hessian`` and ``jax.experimental.jet``.

For ``Δ`` and ``Δ²`` of a tanh MLP ``d → 4×64 → 1`` at ``N`` points, each method is compiled (the compile time
is reported), warmed up, then timed in interleaved rounds (every method once per round, in a shuffled order, so
machine load hits all alike); the table shows the median milliseconds per call, the ratio to the engine, the
ratio to one forward pass, and the largest error relative to ``max |reference|`` where the reference is the
nested mode in float64. ``jet`` uses the same directions as the engine (unit vectors for ``Δ``, the spherical
4-design for ``Δ²``). The PINN step is ``jax.value_and_grad`` of the mean squared biharmonic residual with
respect to the parameters. ``vmap`` is the operator of the per-point network ``u(y)`` for ``y`` of shape
``(d,)`` under ``jax.vmap`` (DeepXDE and jaxpi code), to be compared with the batched call ``engine``.

The floor. The engine carries ``A`` arrays of the primal's size per variable (the primal, the coefficients of
each direction, the collapsed channels: ``plan.n_channels()``); each goes through every layer's matrix product,
so no propagation of that plan costs less than ``A`` forward passes. The tables print that floor beside the
measured figure, in time (``A`` × the measured forward pass) and in XLA's own count of floating-point operations
(``jax.jit(f).lower(x).compile().cost_analysis()``, the untiled engine against ``A`` × the forward pass).
Run ``sciml bench autodiff [--quick]`` or ``python -m sciml.bench.autodiff``.

The suite ``cases/suites/autodiff.yaml`` reads the same measurements as checked ratios (:func:`ratios`,
study ``autodiff_ratios``): ``sciml bench autodiff --check`` (any suite option: ``--out``, ``--check``,
``--update-baseline``, ``--only``) runs it instead of printing the tables.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from sciml import autodiff as ad
from sciml.autodiff.taylor import make_plan
from sciml.autodiff.taylor.plan import _design
from sciml.nn import mlp

WIDTHS = (64, 64, 64, 64)


def _network(d: int, dtype, seed: int = 0):
    return mlp.init(jax.random.PRNGKey(seed), [d, *WIDTHS, 1], dtype)


def _u(params):
    return lambda y: mlp.apply(params, y, "tanh")


def _operator(op: str):
    return ad.laplacian if op == "laplacian" else ad.biharmonic


def _jet_directions(op: str, d: int):
    """``(directions, weight, K)`` with ``op u = weight Σ_v D^K u[v]`` (the engine's directions)."""
    if op == "laplacian":
        return [np.eye(d)[i] for i in range(d)], 1.0, 2
    if d == 1:
        return [np.ones(1)], 1.0, 4
    dirs, _ = _design(d)
    return [np.asarray(v) for v, _ in dirs], dirs[0][1], 4


VARIANTS: dict[str, dict[str, Any]] = {  # engine variants: extra options of mode="taylor"
    "untiled": {"chunk": None},
    "stacked": {"layout": "stacked", "chunk": None},
    "uncollapsed": {"collapse": False},
}


def methods(op: str, d: int, variants=("untiled",)) -> dict:
    """Name -> ``fn(params, x)`` for one operator."""
    from jax.experimental import jet as jjet

    apply = _operator(op)
    out: dict[str, Callable] = {"forward": lambda p, x: mlp.apply(p, x, "tanh")}
    out["engine"] = lambda p, x: apply(_u(p), mode="taylor")(x)
    for v in variants:
        if v:
            out[f"engine-{v}"] = lambda p, x, o=VARIANTS[v]: apply(_u(p), mode="taylor", **o)(x)
    out["nested"] = lambda p, x: apply(_u(p), mode="nested")(x)
    if op == "laplacian":
        def hess(p, x):
            h = jax.vmap(jax.hessian(lambda y: mlp.apply(p, y, "tanh")[0]))(x)
            return jnp.trace(h, axis1=-2, axis2=-1)[:, None]

        out["jax.hessian"] = hess
    dirs, weight, K = _jet_directions(op, d)

    def jet_op(p, x):
        u = _u(p)
        terms = []
        for v in dirs:
            vv = jnp.broadcast_to(jnp.asarray(v, x.dtype), x.shape)
            zeros = [jnp.zeros_like(x)] * (K - 1)
            _, series = jjet.jet(u, (x,), ((vv, *zeros),))
            terms.append(series[K - 1])
        return sum(terms[1:], terms[0]) * jnp.asarray(weight, x.dtype)

    out["jet"] = jet_op
    out["vmap"] = lambda p, x: jax.vmap(apply(_u(p), mode="taylor"))(x)  # u per point: (d,) -> (1,)
    return out


def xla_flops(fn, *args) -> float:
    """Floating-point operations of ``jax.jit(fn)`` by XLA's cost analysis (a loop's body counted once)."""
    cost = jax.jit(fn).lower(*args).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else cost
    return float(cost.get("flops", float("nan"))) if cost else float("nan")


def _compile(fn, *args):
    t0 = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    compile_s = time.perf_counter() - t0
    out = compiled(*args)
    jax.block_until_ready(out)
    return compiled, compile_s, out


def time_all(fns: dict, args: tuple, rounds: int, keep: dict | None = None) -> tuple[dict, dict, dict]:
    """Compile, warm up and time ``fns`` in interleaved rounds: (median seconds, compile seconds, outputs);
    ``keep``, when given, receives the compiled executables (for their memory analysis)."""
    compiled: dict = {} if keep is None else keep
    compile_s, outputs = {}, {}
    for name, fn in fns.items():
        compiled[name], compile_s[name], outputs[name] = _compile(fn, *args)
        jax.block_until_ready(compiled[name](*args))  # second warm-up
    times: dict[str, list[float]] = {name: [] for name in fns}
    order = list(compiled)
    rng = np.random.default_rng(0)
    for _ in range(rounds):
        rng.shuffle(order)  # a fresh order every round: no method always follows the same neighbour
        for name in order:
            t0 = time.perf_counter()
            jax.block_until_ready(compiled[name](*args))
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}, compile_s, outputs


def operator_table(op: str, d: int, n: int, dtype: str, rounds: int, variants, seed: int = 0,
                   only: tuple[str, ...] | None = None) -> dict:
    """One operator's table; ``only``: the methods compared with the engine (all of :func:`methods` when None;
    the forward pass and the engine are always timed)."""
    dt = jnp.float32 if dtype == "float32" else jnp.float64
    params = _network(d, dt, seed)
    x = jax.random.uniform(jax.random.PRNGKey(seed + 1), (n, d), dt, -1.0, 1.0)
    fns = {k: f for k, f in methods(op, d, variants).items()
           if only is None or k in ("forward", "engine") or k.startswith("engine-") or k in only}
    med, comp, outs = time_all(fns, (params, x), rounds)
    params64 = jax.tree.map(lambda a: a.astype(jnp.float64), params)
    ref = jax.jit(lambda p, y: _operator(op)(_u(p), mode="nested")(y))(params64, x.astype(jnp.float64))
    scale = float(jnp.max(jnp.abs(ref)))
    rows = []
    for name in fns:
        err = None
        if name != "forward":
            out = outs[name]
            if out.dtype != dt:
                raise AssertionError(f"{name} returned {out.dtype} for {dtype} inputs")
            err = float(jnp.max(jnp.abs(out.astype(jnp.float64) - ref))) / scale
        rows.append({"method": name, "ms": med[name] * 1e3, "compile_s": comp[name], "err": err})
    base = med["engine"]
    for r in rows:
        r["x_engine"] = r["ms"] / (base * 1e3)
        r["x_forward"] = r["ms"] / (med["forward"] * 1e3)
    plan = make_plan((ad.laplacian_op(d) if op == "laplacian" else ad.biharmonic_op(d),), d)
    untiled = lambda p, y: _operator(op)(_u(p), mode="taylor", chunk=None)(y)
    flops = xla_flops(untiled, params, x) / xla_flops(fns["forward"], params, x)
    return {"op": op, "d": d, "n": n, "dtype": dtype, "rows": rows, "arrays": plan.n_channels(),
            "directions": len(plan.directions), "flops_x_forward": flops}


def print_table(t: dict) -> None:
    print(f"\n{t['op']}  d={t['d']}  N={t['n']}  {t['dtype']}  (engine: {t['directions']} directions, "
          f"{t['arrays']} arrays per variable)")
    print(f"  {'method':<15} {'ms':>9} {'x engine':>9} {'x forward':>10} {'max rel err':>12} {'compile s':>10}")
    for r in t["rows"]:
        err = "" if r["err"] is None else f"{r['err']:.1e}"
        print(f"  {r['method']:<15} {r['ms']:>9.2f} {r['x_engine']:>9.2f} {r['x_forward']:>10.2f} {err:>12} "
              f"{r['compile_s']:>10.2f}")
    f = floor(t)
    print(f"  floor: {t['arrays']} arrays × forward = {f['floor_ms']:.2f} ms; engine {f['over_floor']:.2f}× the floor "
          f"in time, {f['flops_over_floor']:.2f}× in XLA flops ({t['flops_x_forward']:.1f} forward passes' flops)")


def floor(t: dict) -> dict:
    """The table's floor (``arrays`` forward passes) and the engine's distance to it, in time and in flops."""
    rows = {r["method"]: r for r in t["rows"]}
    floor_ms = t["arrays"] * rows["forward"]["ms"]
    return {"floor_ms": floor_ms, "over_floor": rows["engine"]["ms"] / floor_ms,
            "flops_over_floor": t["flops_x_forward"] / t["arrays"]}


def print_summary(tables: list, train: dict | None) -> None:
    """Batched and ``vmap`` calls, the floor and nested JAX side by side (one line per table)."""
    print("\nsummary: engine batched and under vmap, the floor (arrays × forward), nested forward mode (ms)")
    print(f"  {'operator':<18} {'N':>6} {'dtype':<8} {'batched':>8} {'vmap':>8} {'vmap/b':>7} {'floor':>8} "
          f"{'b/floor':>8} {'nested':>8} {'nested/b':>9}")
    for t in tables:
        rows, f = {r["method"]: r for r in t["rows"]}, floor(t)
        b, v, n = rows["engine"]["ms"], rows["vmap"]["ms"], rows["nested"]["ms"]
        print(f"  {t['op'] + ' d=' + str(t['d']):<18} {t['n']:>6} {t['dtype']:<8} {b:>8.2f} {v:>8.2f} {v / b:>7.2f} "
              f"{f['floor_ms']:>8.2f} {f['over_floor']:>8.2f} {n:>8.2f} {n / b:>9.2f}")
    if train is not None:
        rows = {r["mode"]: r for r in train["rows"]}
        if "taylor-vmap" in rows:
            b, v = rows["taylor"]["ms"], rows["taylor-vmap"]["ms"]
            print(f"  {'PINN step d=' + str(train['d']):<18} {train['n']:>6} {train['dtype']:<8} {b:>8.2f} {v:>8.2f} "
                  f"{v / b:>7.2f}" + (f" {'':>8} {'':>8} {rows['nested']['ms']:>8.2f} {rows['nested']['ms'] / b:>9.2f}"
                                      if "nested" in rows else ""))


def training_step(n: int, dtype: str, rounds: int, modes=("taylor", "taylor-vmap", "taylor-untiled", "nested"),
                  d: int = 2, seed: int = 0) -> dict:
    """``value_and_grad`` of the mean squared biharmonic residual ``Δ²u - s`` w.r.t. the parameters
    (``taylor-vmap``: the per-point network's ``Δ²`` under ``jax.vmap``)."""
    dt = jnp.float32 if dtype == "float32" else jnp.float64
    params = _network(d, dt, seed)
    x = jax.random.uniform(jax.random.PRNGKey(seed + 1), (n, d), dt, -1.0, 1.0)
    source = jnp.prod(jnp.sin(jnp.pi * x), axis=-1)

    def loss(p, x, mode):
        mode, _, variant = mode.partition("-")
        if variant == "vmap":
            r = jax.vmap(ad.biharmonic(lambda y: mlp.apply(p, y, "tanh")[0], mode=mode))(x) - source
            return jnp.mean(r ** 2)
        opts = VARIANTS[variant] if variant else {}
        r = ad.biharmonic(lambda y: mlp.apply(p, y, "tanh")[..., 0], mode=mode, **opts)(x) - source
        return jnp.mean(r ** 2)

    fns = {m: jax.value_and_grad(lambda p, x, m=m: loss(p, x, m)) for m in modes}
    med, comp, outs = time_all(fns, (params, x), rounds)
    g0 = outs[modes[0]][1]
    rows = []
    for m in modes:
        g = outs[m][1]
        num = max(float(jnp.max(jnp.abs(a - b))) for a, b in zip(jax.tree.leaves(g), jax.tree.leaves(g0)))
        den = max(float(jnp.max(jnp.abs(b))) for b in jax.tree.leaves(g0))
        rows.append({"mode": m, "ms": med[m] * 1e3, "compile_s": comp[m], "x_engine": med[m] / med[modes[0]],
                     "grad_diff": num / den})
    return {"n": n, "dtype": dtype, "d": d, "rows": rows}


def print_training(t: dict) -> None:
    print(f"\nPINN step: value_and_grad of mean (Δ²u - s)², d={t['d']}, N={t['n']}, {t['dtype']}")
    print(f"  {'mode':<15} {'ms':>9} {'x engine':>9} {'compile s':>10} {'grad rel diff':>14}")
    for r in t["rows"]:
        print(f"  {r['mode']:<15} {r['ms']:>9.1f} {r['x_engine']:>9.2f} {r['compile_s']:>10.2f} "
              f"{r['grad_diff']:>14.1e}")


def check_targets(tables: list, train: dict | None) -> list[tuple[str, bool, str]]:
    """The acceptance targets (float32, N = 8192) that the measured tables cover."""
    out = []

    def row(t, name):
        return next((r for r in t["rows"] if r["method"] == name), None)

    for t in tables:
        if t["dtype"] != "float32" or t["n"] != 8192:
            continue
        eng, nst, jet = row(t, "engine"), row(t, "nested"), row(t, "jet")
        if eng is None or nst is None:
            continue
        sp_n = nst["ms"] / eng["ms"]
        vm = row(t, "vmap")
        if vm is not None:
            r = vm["ms"] / eng["ms"]
            out.append((f"{SYMBOL[t['op']]} d={t['d']}: vmap within 10% of batched", r <= 1.1, f"{r:.2f}×"))
        if t["op"] == "laplacian" and t["d"] == 2:
            out.append(("Δ d=2: engine ≤ 3.5× forward", eng["x_forward"] <= 3.5, f"{eng['x_forward']:.2f}×"))
            out.append(("Δ d=2: ≥ 1.4× faster than nested", sp_n >= 1.4, f"{sp_n:.2f}×"))
        if t["op"] == "laplacian" and t["d"] == 3:
            out.append(("Δ d=3: ≥ 1.7× faster than nested", sp_n >= 1.7, f"{sp_n:.2f}×"))
        if t["op"] == "biharmonic" and t["d"] in (2, 3):
            need = 1.8 if t["d"] == 2 else 1.5
            out.append((f"Δ² d={t['d']}: ≥ {need}× faster than nested", sp_n >= need, f"{sp_n:.2f}×"))
            if jet is not None:
                sp_j = jet["ms"] / eng["ms"]
                out.append((f"Δ² d={t['d']}: ≥ {need}× faster than jet", sp_j >= need, f"{sp_j:.2f}×"))
    if train is not None and train["dtype"] == "float32":
        rows = {r["mode"]: r for r in train["rows"]}
        if "taylor" in rows and "nested" in rows:
            sp = rows["nested"]["ms"] / rows["taylor"]["ms"]
            out.append(("PINN step d=2: ≥ 3× faster than nested", sp >= 3.0, f"{sp:.2f}×"))
            if "taylor-vmap" in rows:
                r = rows["taylor-vmap"]["ms"] / rows["taylor"]["ms"]
                out.append(("PINN step d=2: vmap within 10% of batched", r <= 1.1, f"{r:.2f}×"))
            c = rows["taylor"]["compile_s"]
            out.append(("PINN step: engine compile ≤ 3 s", c <= 3.0, f"{c:.2f} s"))
    return out


SYMBOL = {"laplacian": "Δ", "biharmonic": "Δ²"}
SHORT = {"nested": "nested", "jet": "jet", "jax.hessian": "hessian", "vmap": "vmap"}  # method -> metric suffix


def ratios(tables: list, train: dict | None) -> dict:
    """Suite metrics from measured tables, each a ratio of two timings taken in one process:
    ``<op>_d<d>_speedup_<method>`` (method ms / engine ms, higher is better; ``vmap``: the per-point call under
    ``jax.vmap``), ``<op>_d<d>_forward_passes`` (engine ms / forward ms, lower is better),
    ``<op>_d<d>_floor_passes`` (arrays carried: the floor in forward passes), ``<op>_d<d>_over_floor`` and
    ``<op>_d<d>_flops_over_floor`` (the engine over its floor, in time and in XLA flops),
    ``<op>_d<d>_engine_error`` (max error against nested float64), ``pinn_step_speedup_nested``,
    ``pinn_step_speedup_vmap`` and ``pinn_step_compile_s``."""
    out = {}
    for t in tables:
        rows = {r["method"]: r for r in t["rows"]}
        eng, key = rows["engine"], f"{t['op']}_d{t['d']}"
        out.update({f"{key}_speedup_{SHORT[m]}": rows[m]["ms"] / eng["ms"] for m in SHORT if m in rows})
        out[f"{key}_forward_passes"] = eng["ms"] / rows["forward"]["ms"]
        out[f"{key}_engine_error"] = eng["err"]
        if "flops_x_forward" in t:
            f = floor(t)
            out.update({f"{key}_floor_passes": float(t["arrays"]), f"{key}_over_floor": f["over_floor"],
                        f"{key}_flops_over_floor": f["flops_over_floor"]})
    if train is not None:
        rows = {r["mode"]: r for r in train["rows"]}
        out["pinn_step_speedup_nested"] = rows["nested"]["ms"] / rows["taylor"]["ms"]
        if "taylor-vmap" in rows:
            out["pinn_step_speedup_vmap"] = rows["taylor-vmap"]["ms"] / rows["taylor"]["ms"]
        out["pinn_step_compile_s"] = rows["taylor"]["compile_s"]
    return out


SUITE_FLAGS = ("--out", "--check", "--update-baseline", "--only")  # they run cases/suites/autodiff.yaml


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a.split("=")[0] in SUITE_FLAGS for a in argv):
        from . import suite

        return suite.main(["autodiff", *argv])
    p = argparse.ArgumentParser(prog="sciml bench autodiff", description=__doc__.splitlines()[0],
                                epilog="With --out, --check, --update-baseline or --only it runs the suite "
                                       "cases/suites/autodiff.yaml instead (see sciml bench SUITE --help).")
    p.add_argument("--quick", action="store_true", help="only float32, N = 8192, the training step at N = 8192")
    p.add_argument("--ops", default="laplacian,biharmonic")
    p.add_argument("--dims", default="2,3")
    p.add_argument("--sizes", default="1024,8192")
    p.add_argument("--dtypes", default="float32,float64")
    p.add_argument("--rounds", type=int, default=21, help="timed calls per method (interleaved)")
    p.add_argument("--variants", default="untiled", help=f"engine variants to time as well, from {sorted(VARIANTS)} "
                   "(comma-separated, '' for none)")
    p.add_argument("--no-train", action="store_true", help="skip the PINN training step")
    p.add_argument("--train-size", type=int, default=8192)
    args = p.parse_args(argv)
    jax.config.update("jax_enable_x64", True)  # float64 runs and references; float32 arrays stay float32
    if args.quick:
        args.sizes, args.dtypes = "8192", "float32"
    variants = tuple(v for v in args.variants.split(",") if v)
    print(f"autodiff benchmark on {jax.devices()[0].device_kind} ({jax.devices()[0].platform}), "
          f"tanh MLP d→{'×'.join(map(str, WIDTHS))}→1, median of {args.rounds} interleaved calls")
    tables = []
    for op in args.ops.split(","):
        for d in map(int, args.dims.split(",")):
            for n in map(int, args.sizes.split(",")):
                for dtype in args.dtypes.split(","):
                    t = operator_table(op, d, n, dtype, args.rounds, variants)
                    print_table(t)
                    tables.append(t)
    train = None
    if not args.no_train:
        for dtype in args.dtypes.split(","):
            t = training_step(args.train_size, dtype, max(5, args.rounds // 2))
            print_training(t)
            if dtype == "float32":
                train = t
    print_summary(tables, train)
    checks = check_targets(tables, train)
    if checks:
        print("\nacceptance targets (float32, N = 8192):")
        for name, ok, value in checks:
            print(f"  {'PASS' if ok else 'FAIL'}  {name}: {value}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
