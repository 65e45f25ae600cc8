"""Studies for benchmark suites: functions that measure something and return metrics.

Each study is ``fn(**args) -> {"metrics": {...}, "convergence": {...}?}`` registered in ``STUDIES``. A
convergence result holds ``h`` (step sizes), ``error``, ``observed_order`` (least-squares slope of
log error against log h) and ``theoretical_order``. Run one in a fresh process with
``python -m sciml.bench.studies NAME --out DIR [--args JSON]``; it writes ``DIR/result.json``. A study
with a ``folder`` argument keeps its pieces there as they end and goes on from them when run again
(default: ``DIR``).
"""
from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import UserError
from ..io.atomic import write_json

STUDIES: dict[str, Callable[..., dict]] = {}


def study(fn: Callable) -> Callable:
    STUDIES[fn.__name__] = fn
    return fn


def convergence(h, error, theoretical_order: float, h_label: str = "h") -> dict:
    """The observed order (the least-squares slope, and each pair of successive steps') beside the scheme's
    declared ``theoretical_order`` (its module's ``ORDER``)."""
    h, error = np.asarray(h, float), np.asarray(error, float)
    order = float(np.polyfit(np.log(h), np.log(error), 1)[0])
    pairs = np.log(error[:-1] / error[1:]) / np.log(h[:-1] / h[1:])
    return {"h": h.tolist(), "error": error.tolist(), "observed_order": order, "orders": pairs.tolist(),
            "theoretical_order": theoretical_order, "h_label": h_label}


def main(argv=None) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")  # a front door: draws off-screen
    p = argparse.ArgumentParser(prog="python -m sciml.bench.studies")
    p.add_argument("name", choices=sorted(STUDIES))
    p.add_argument("--out", required=True)
    p.add_argument("--args", default="{}", help="JSON keyword arguments")
    a = p.parse_args(argv)
    args = json.loads(a.args)
    if "folder" in inspect.signature(STUDIES[a.name]).parameters:
        args.setdefault("folder", a.out)
    try:
        result = STUDIES[a.name](**args)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    write_json(os.path.join(a.out, "result.json"), result)
    print(json.dumps(result.get("metrics", {}), indent=2))
    return 0


@study
def plate_fd_order(sizes=(8, 16, 32, 64)) -> dict:
    """Clamped square under uniform load: centre deflection of the 13-point scheme against its Richardson limit
    (theoretical order 2); the limit is compared with Timoshenko's 0.00126 q a^4 / D (converged 0.00126532)."""
    from sciml.equations.plate_reference import fd_solve
    from sciml.equations.plate_reference.fd import ORDER, solve_grid
    from sciml.equations.plate_reference.plate import make_load, make_plate

    square = ((0.0, 1.0), (0.0, 1.0))
    plate, load = make_plate(square, "clamped", 1.0, 0.3), make_load(1.0, square)
    limit = fd_solve(square, "clamped", 1.0, 0.3, 1.0, n=2 * max(sizes))
    c = len(limit.x) // 2
    w_ref = float(limit.fields["w"][c, c])
    errors = [abs(float(solve_grid(plate, load, n, n).fields["w"][n // 2, n // 2]) - w_ref) for n in sizes]
    conv = convergence([1.0 / n for n in sizes], errors, ORDER)
    return {"metrics": {"observed_order": conv["observed_order"], "w_max_coefficient": w_ref,
                        "rel_error_vs_timoshenko": abs(w_ref - 0.00126532) / 0.00126532},
            "convergence": conv}


@study
def dfg_lbm(setup="2D-2", cells_per_diameter=40, t_end=8.0, ramp=2.0, u_lat=0.05) -> dict:
    """The lattice Boltzmann solver (``solvers/classical/lbm.py``) on a DFG set-up from rest to ``t_end``: 2D-2's
    Strouhal number and force maxima over the last two periods, 2D-1's forces and pressure difference averaged
    over the last quarter of the time, each against the benchmark's value (2D-2: the middle of its range)."""
    import jax

    from sciml.equations.ns_dfg import DFG
    from sciml.equations.ns_forces import oscillation
    from sciml.solvers.classical import lbm

    bench = DFG[setup]
    u_mean = bench.Re * 1e-3 / 0.1  # Re = U_mean D / nu with D = 0.1, nu = 1e-3; the inflow's peak is 1.5 U_mean
    lat = lbm.lattice(lbm.dfg(1.5 * u_mean), cells_per_diameter, u_lat)
    with jax.enable_x64(True):
        hist, _ = lbm.simulate(lat, t_end, 0.002 if bench.unsteady else 0.05, ramp=ramp)
    if bench.unsteady:
        got = oscillation(hist.t, hist.c_L, hist.c_D, 0.1, u_mean)
    else:
        last = hist.t > 0.75 * t_end
        got = {"c_D": hist.c_D[last].mean(), "c_L": hist.c_L[last].mean(), "delta_p": hist.delta_p[last].mean()}
    metrics = {k: float(got[k]) for k in bench.references}
    metrics.update({f"{k}_rel_error": abs(got[k] - ref) / abs(ref) for k, ref in bench.references.items()})
    metrics.update(nodes=lat.nx * lat.ny, steps=int(round(t_end / lat.dt)))
    return {"metrics": metrics}


@study
def darcy_fd_order(sizes=(17, 33, 65, 129), averaging="arithmetic") -> dict:
    """Darcy five-point scheme on a manufactured solution (theoretical order: ``darcy.ORDER``)."""
    from sciml.solvers.classical import darcy

    errors = []
    for s in sizes:
        a, f, u = darcy.manufactured(s)
        errors.append(float(np.abs(darcy.solve(a[None], f, averaging)[0] - u).max()))
    conv = convergence([1.0 / (s - 1) for s in sizes], errors, darcy.ORDER)
    return {"metrics": {"observed_order": conv["observed_order"], "max_error_finest": errors[-1]}, "convergence": conv}


@study
def burgers_time_order(steps=(20, 40, 80, 160), nu=0.05, T=0.5, points=64) -> dict:
    """ETDRK4 for Burgers against the exact Cole–Hopf solution of u0 = sin 2πx (theoretical order:
    ``burgers.ORDER``)."""
    from sciml.solvers.classical import burgers

    x = np.arange(points) / points
    exact = burgers.cole_hopf_sine(x, T, nu)
    u0 = np.sin(2.0 * np.pi * x)[None]
    errors = [float(np.abs(burgers.solve(u0, nu=nu, T=T, dt=T / n)[0, :, -1] - exact).max()) for n in steps]
    conv = convergence([T / n for n in steps], errors, burgers.ORDER, "dt")
    return {"metrics": {"observed_order": conv["observed_order"], "max_error_finest": errors[-1]}, "convergence": conv}


@study
def vorticity_time_order(steps=(20, 40, 80), size=32, T=2.0, scheme="heun") -> dict:
    """Crank–Nicolson with Heun (or Euler) advection, or the integrating factor with RK4 (``ifrk4``), against a 16x
    finer time step (theoretical order: ``vorticity.ORDER[scheme]``)."""
    from sciml.solvers.classical import grf, vorticity

    w0 = grf.periodic_grf(np.random.default_rng(3), 2, size, 2, alpha=2.5, tau=7.0, sigma=7.0**1.5)
    f = vorticity.forcing(size)
    ref = vorticity.solve(w0, f, T=T, dt=T / (16 * max(steps)), scheme=scheme)[..., -1]
    errors = [float(np.abs(vorticity.solve(w0, f, T=T, dt=T / n, scheme=scheme)[..., -1] - ref).max())
              for n in steps]
    conv = convergence([T / n for n in steps], errors, vorticity.ORDER[scheme], "dt")
    return {"metrics": {"observed_order": conv["observed_order"], "max_error_finest": errors[-1]}, "convergence": conv}


@study
def vorticity_grid_gap(samples=5, coarse=64, fine=256, nu=1e-3, T=50.0, times=(10, 30, 50), dt=0.1, cfl=3.0,
                       reference_cfl=0.5, seed=123) -> dict:
    """How far the FNO's Navier–Stokes data solved on the ``coarse`` grid lie from the paper's ``fine`` solve
    subsampled to it: the relative L2 distance at ``times`` (mean over ``samples`` initial fields drawn on the
    fine grid), starting the coarse solve from the field's Fourier truncation (``truncated``: what a field drawn
    on the coarse grid is) or from its subsample (``subsampled``: the paper's input, its fine modes aliased);
    and the coarse solve's time-stepping error (``time_step``: against ``cfl = reference_cfl``). IF-RK4 with
    steps of at most ``dt`` and Courant number ``cfl`` throughout."""
    from sciml.solvers.classical import grf, vorticity

    r = fine // coarse
    w0 = np.concatenate([grf.periodic_grf(g, 1, fine, 2, alpha=2.5, tau=7.0, sigma=7.0**1.5)
                         for g in grf.sample_rngs(seed, samples)])
    k = np.abs(np.fft.fftfreq(fine, 1.0 / fine))
    truncated = np.fft.ifft2(np.fft.fft2(w0) * ((k[:, None] < coarse / 2) & (k[None, :] < coarse / 2))).real

    def solve(w, cfl=cfl, dt=dt):
        s = w.shape[-1]
        return vorticity.solve(w, vorticity.forcing(s), nu=nu, T=T, dt=dt, record_steps=round(T), scheme="ifrk4",
                               cfl=cfl)[:, ::s // coarse, ::s // coarse]

    def distance(a, b):  # per time, the mean over the samples
        return [float(np.mean(np.linalg.norm(a[..., t - 1] - b[..., t - 1], axis=(1, 2))
                              / np.linalg.norm(b[..., t - 1], axis=(1, 2)))) for t in times]

    reference = solve(w0)
    start = solve(truncated[:, ::r, ::r])
    gaps = {"truncated": distance(start, reference), "subsampled": distance(solve(w0[:, ::r, ::r]), reference),
            "time_step": distance(start, solve(truncated[:, ::r, ::r], reference_cfl, dt * reference_cfl / cfl))}
    return {"metrics": {f"{name}_t{t:g}": v for name, values in gaps.items() for t, v in zip(times, values)},
            "gaps": gaps, "times": list(times)}


@study
def autodiff_ratios(ops=("laplacian", "biharmonic"), dims=(2, 3), n=8192, dtype="float32", rounds=11,
                    train_size=8192, methods=None, train_modes=("taylor", "taylor-vmap", "nested")) -> dict:
    """The engine against nested forward mode, ``jax.hessian``, ``jet``, one forward pass, its floor and the
    per-point call under ``vmap`` for each operator and dimension, and the PINN step against nested mode and
    ``vmap`` (:func:`sciml.bench.autodiff.ratios`); ratios of timings interleaved in one process, so machine load
    hits both sides alike. ``methods``: the ones compared with the engine (all when None: ``nested``,
    ``jax.hessian``, ``jet``, ``vmap``); ``train_modes``: the PINN step's (``taylor`` first), so that a suite times
    only what it checks."""
    import jax

    from . import autodiff

    only = None if methods is None else tuple(methods)
    with jax.enable_x64(True):  # float64 for the references of the errors; float32 arrays stay float32
        tables = [autodiff.operator_table(op, d, n, dtype, rounds, variants=(), only=only) for op in ops for d in dims]
        train = (autodiff.training_step(train_size, dtype, max(5, rounds // 2), modes=tuple(train_modes))
                 if train_size else None)
    return {"metrics": autodiff.ratios(tables, train), "tables": tables, "train": train}


@study
def autodiff_all_partials(dims=(1, 2, 3, 4, 5), max_order=6, points=2, hidden=4, seed=0) -> dict:
    """Every partial of every order up to ``max_order`` (all multi-indices: 462 of them in 5 dimensions) of a
    float64 tanh MLP d → ``hidden`` → 2, from one planned Taylor propagation, against nested ``jax.jacfwd``
    (the derivative tensors D^k f, k ≤ ``max_order``): the largest error relative to each partial's largest
    value, per dimension. The tests cover orders up to 6 in d ≤ 3 and up to 4 in d = 4, 5; this completes
    them (d = 5 at order 6 takes minutes and GBs for the nested reference)."""
    import time

    import jax
    import jax.numpy as jnp

    from sciml import autodiff as ad
    from sciml.autodiff.nested import jacfwd_tensor, tensor_entry
    from sciml.nn import mlp

    metrics = {}
    with jax.enable_x64(True):
        for d in dims:
            t0 = time.perf_counter()
            rng = np.random.default_rng([seed, d])
            sizes = [d, hidden, 2]
            params = [{"W": jnp.asarray(rng.normal(0, np.sqrt(2 / (a + b)), (a, b))),
                       "b": jnp.asarray(rng.normal(0, 0.1, b))} for a, b in zip(sizes[:-1], sizes[1:])]
            f = functools.partial(lambda p, x: mlp.apply(p, x, "tanh"), params)
            x = jnp.asarray(rng.uniform(-0.8, 0.8, (points, d)))
            alphas = [a for k in range(1, max_order + 1) for a in ad.multi_indices(d, k)]
            ref = {k: np.asarray(jacfwd_tensor(f, k)(x)) for k in range(1, max_order + 1)}
            got = jax.jit(ad.derivatives(f, alphas, mode="taylor"))(x)
            worst = 0.0
            for a in alphas:
                r = tensor_entry(ref[sum(a)], a)
                worst = max(worst, float(np.abs(np.asarray(got[a]) - r).max() / max(np.abs(r).max(), 1e-300)))
            metrics[f"max_rel_error_d{d}"] = worst
            metrics[f"partials_d{d}"] = len(alphas)
            metrics[f"seconds_d{d}"] = round(time.perf_counter() - t0, 1)
    return {"metrics": metrics}


@study
def exact_vs_penalty(case="plate", parts=("left", "right", "bottom", "top"), length=0.4, seconds=300.0,
                     adam_share=0.3, chunk=50, overrides=()) -> dict:
    """One case trained for the same wall time twice, its ``parts``' conditions as penalties and then imposed
    exactly (``conditions.enforce``, :mod:`sciml.solvers.pinn.exact`): Adam for ``adam_share`` of the time,
    then L-BFGS, both in chunks of ``chunk`` steps from the same seed and points. The time is training time:
    each chunk is compiled before the clock runs (compiling is reported beside it), so the transform's cost per
    step is part of the comparison; the metrics are each run's final errors (``<error>_<how>``), its steps and
    seconds."""
    from sciml import cases
    from sciml.compile import Policy

    metrics: dict = {}
    for how in ("penalty", "exact"):
        enforce = ", ".join(f"{p}: {how}" for p in parts)
        cfg = cases.load(case, [*overrides, f"conditions={{enforce: {{{enforce}}}, length: {length}}}"]).config
        with Policy.of(cfg.dtype).precision():
            result = _train_for(cfg, seconds, adam_share, chunk)
        metrics.update({f"{k}_{how}": v for k, v in result.items()})
    return {"metrics": metrics}


@study
def ensemble_coverage(case="plate_identify", draws=20, members=8, start="trained", steps=300, timed=2,
                      folder=None, overrides=()) -> dict:
    """How often an ensemble's 95 % interval (``ensemble:``, :mod:`sciml.solvers.pinn.features.ensemble`) holds each
    unknown's truth over ``draws`` sets of data with fresh noise (``data.seed`` 1, 2, ...; goal: 18 of 20), the
    intervals' mean relative half-width, and the cost: on the first ``timed`` draws one network is trained
    too (the case without ``ensemble``), in this process, and ``cost_ratio`` is the ensemble's wall time
    (``sciml run``'s, compiling included) over its. Each draw's record goes to ``folder/draw_<k>.json`` as it
    ends; run again, the study goes on from the draws it has (``folder`` None: a temporary folder)."""
    import tempfile

    from sciml import cases
    from sciml.equations.sections import numbers as coefficients
    from sciml.solvers.pinn.features import observations
    from sciml.solvers.pinn.run import train

    def load(over) -> Any:  # a PINN case's config
        return cases.load(case, list(over)).config

    folder = folder or tempfile.mkdtemp(prefix="coverage-")
    os.makedirs(folder, exist_ok=True)
    spec = f"ensemble={{members: {members}, start: {start}, steps: {steps}}}"
    records = []
    for k in range(1, draws + 1):
        path = os.path.join(folder, f"draw_{k}.json")
        if not os.path.exists(path):
            data = [*overrides, f"data.seed={k}", f"data.path={os.path.join(folder, f'data_{k}.csv')}"]
            observations.datagen(load(data), quiet=True, force=True)
            runs = {"ensemble": [*data, spec], **({"single": data} if k <= timed else {})}
            record = {}
            for name, over in runs.items():
                summary = train(load(over), os.path.join(folder, f"run_{k}_{name}"), quiet=True)
                record[f"{name}_wall_time_s"] = summary["wall_time_s"]
                if name == "ensemble":
                    record["unknowns"] = summary["ensemble"]["unknowns"]
            write_json(path, record)
        with open(path, encoding="utf-8") as f:
            records.append(json.load(f))
    metrics: dict = {"draws": len(records), "members": members}
    truth = coefficients(load(overrides).equation)  # what the data were made with
    for name in records[0]["unknowns"]:
        each = [r["unknowns"][name] for r in records]
        metrics[f"{name}_covered"] = sum(e["covers"] for e in each)
        metrics[f"{name}_half_width_rel"] = float(np.mean([(e["interval_95"][1] - e["interval_95"][0]) / 2
                                                           / abs(e["mean"]) for e in each]))
        metrics[f"{name}_rel_error_mean"] = float(np.mean([abs(e["mean"] - truth[name]) / abs(truth[name])
                                                           for e in each]))
    timed_records = [r for r in records if "single_wall_time_s" in r]
    if timed_records:
        metrics["cost_ratio"] = float(np.mean([r["ensemble_wall_time_s"] / r["single_wall_time_s"]
                                               for r in timed_records]))
    return {"metrics": metrics}


def _train_for(cfg, seconds: float, adam_share: float, chunk: int) -> dict:
    """Train a PINN case for ``seconds`` of wall time in steps (Adam, then L-BFGS; a NaN loss keeps the state
    before it and ends the phase) and return its rel-L2 errors, steps and seconds."""
    import time

    import jax

    from sciml.solvers.pinn import assemble, optim
    from sciml.solvers.pinn.run import evaluate

    problem = assemble(cfg)
    key = jax.random.PRNGKey(cfg.seed)
    batch = problem.sample(np.random.default_rng(cfg.seed))
    adam, _ = optim.adam(cfg.training.adam)
    state = optim.init_state(problem.init(key), adam, key)
    steps, clock = {}, {"training": 0.0, "compiling": 0.0}

    def phase(name, until, chunk_fn):
        nonlocal state
        t = time.perf_counter()
        run = chunk_fn.lower(state, batch, chunk).compile()  # ahead of the clock: compiling is not training
        clock["compiling"] += time.perf_counter() - t
        steps[name] = 0
        while clock["training"] < until:
            t = time.perf_counter()
            after, losses = run(state, batch, chunk)
            finite = np.all(np.isfinite(np.asarray(losses)))  # waits for the chunk
            clock["training"] += time.perf_counter() - t
            if not finite:
                return
            state, steps[name] = after, steps[name] + chunk

    phase("adam", adam_share * seconds, optim.adam_chunk(problem.loss, adam, chunk))
    lbfgs = optim.lbfgs(cfg.training.lbfgs)
    state = optim.init_state(state["params"], lbfgs, state["key"])
    phase("lbfgs", seconds, optim.lbfgs_chunk(problem.loss, lbfgs, chunk))
    ev = problem.geometry.evaluation_points(cfg.evaluation.grid)
    reference = problem.equation.reference(ev.points)
    assert reference is not None, "a case with a reference solution"
    reference = {k: np.asarray(v).reshape(ev.shape) for k, v in reference.items()}
    _, errors = evaluate(problem, state["params"], reference, ev)
    return {**errors, "adam_steps": steps["adam"], "lbfgs_steps": steps["lbfgs"],
            **{f"{k}_s": round(v, 1) for k, v in clock.items()}}


@study
def damage_identifiability(case="plate_damage", draws=10, start=(0.5, 0.5, 0.1, 1.5), overrides=()) -> dict:
    """How well do a damaged plate's sensors fix its zone, whatever learns it? The zone's numbers fitted by least
    squares of the finite-difference plate (the reference ``sciml datagen`` makes the readings with) to ``draws``
    sets of readings with fresh noise (``data.seed`` 1, 2, ...), twice: ``known`` the zone's radius (x, y, drop
    free) and ``free`` (the radius too). ``start``: the fits' first guess, the centre as a fraction of the plate's
    sides, the drop, the radius as a multiple of the truth's. Per fit: each number's mean error and its spread
    over the draws (``x``, ``y``, ``radius`` as fractions of the side along them, ``drop`` in percentage points),
    the mean chi-squared per reading at the fit (1: the noise), and at the first draw's fit the linearised
    standard deviations (from J^T J, the noise as ``sciml datagen`` draws it) and the drop-radius correlation;
    ``<fit>_drop_within_5_points``: the draws whose drop is within 5 points of the truth (plate_damage's goal)."""
    from dataclasses import replace

    from scipy.optimize import least_squares

    from sciml import cases, equations
    from sciml.solvers.pinn.features import observations
    from sciml.solvers.pinn.geometry import build_geometry

    cfg: Any = cases.load(case, list(overrides)).config  # a PINN case's
    truth, d = cfg.equation.damage, cfg.data
    if truth is None or d is None or d.sensors is None or list(d.fields) != ["w"]:
        raise ValueError(f"{case}: needs equation.damage, and data of w from data.sensors")
    domain = build_geometry(cfg.geometry)
    (x0, x1), (y0, y1) = domain.bounds
    unit = {"x": x1 - x0, "y": y1 - y0, "drop": 0.01, "radius": min(x1 - x0, y1 - y0)}  # errors in: sides, points
    names = {"known": ["x", "y", "drop"], "free": ["x", "y", "drop", "radius"]}
    guess = {"x": x0 + start[0] * unit["x"], "y": y0 + start[1] * unit["y"], "drop": start[2],
             "radius": start[3] * truth.radius}
    limits = {"x": (x0, x1), "y": (y0, y1), "drop": (0.0, 0.95), "radius": (0.02 * unit["radius"], unit["radius"] / 2)}

    def model(values: dict, pts):
        eq = equations.create(replace(cfg.equation, damage=replace(truth, **values)), domain)
        reference = eq.reference(pts)
        assert reference is not None, "a simply supported damaged plate has its finite differences"
        return np.asarray(reference["w"], float)

    def misfit(v, free, observed, pts, sigma):  # the readings' misfit in noise units, the free numbers at v
        return (observed - model(dict(zip(free, v)), pts)) / sigma

    fits: dict[str, list] = {k: [] for k in names}
    for k in range(1, draws + 1):
        cols = observations.generate(replace(cfg, data=replace(d, seed=k)), domain)
        pts = np.stack([cols[c] for c in domain.coords], axis=-1)
        sigma = observations.noise_std(model({}, pts), d.noise)
        for fit, free in names.items():
            residual = functools.partial(misfit, free=free, observed=cols["w"], pts=pts, sigma=sigma)
            out = least_squares(residual, [guess[n] for n in free], x_scale=[unit[n] * 0.1 for n in free],
                                bounds=list(zip(*(limits[n] for n in free))), diff_step=1e-4, max_nfev=200)
            fits[fit].append((out.x, float(np.mean(out.fun ** 2)), out.jac))
        shown = {fit: ", ".join(f"{n} {v:.4g}" for n, v in zip(free, fits[fit][-1][0])) for fit, free in names.items()}
        print(f"draw {k}/{draws}: " + "; ".join(f"{fit} {v}" for fit, v in shown.items()), file=sys.stderr, flush=True)
    metrics: dict = {"draws": draws, "sensors": len(pts)}
    for fit, free in names.items():
        values = np.array([f[0] for f in fits[fit]])
        metrics[f"{fit}_chi2_per_reading"] = float(np.mean([f[1] for f in fits[fit]]))
        cov = np.linalg.inv(fits[fit][0][2].T @ fits[fit][0][2])
        sd = np.sqrt(np.diag(cov))
        for i, n in enumerate(free):
            err = (values[:, i] - getattr(truth, n)) / unit[n]
            metrics[f"{fit}_{n}_error_mean"] = float(np.mean(np.abs(err)))
            metrics[f"{fit}_{n}_spread"] = float(np.std(err))
            metrics[f"{fit}_{n}_sd_linear"] = float(sd[i] / unit[n])
        drop = np.abs(values[:, free.index("drop")] - truth.drop) / unit["drop"]
        metrics[f"{fit}_drop_within_5_points"] = int(np.sum(drop <= 5.0))  # plate_damage's goal met
        if "radius" in free:
            metrics[f"{fit}_drop_radius_correlation"] = float(cov[2, 3] / (sd[2] * sd[3]))
    return {"metrics": metrics}


QUICK_OPERATOR = ("data.n_train=200", "data.n_test=50", "training.epochs=120")  # docs/notes/operator_estimate.md


@study
def plate_operator_ood(case="plate_operator_quick", overrides=QUICK_OPERATOR, steps=200, grf=12, patches=3,
                       seed=1, terms=128, folder=None, resolution=None, sampling="values", lr=None,
                       method=None) -> dict:
    """The plate operator out of its distribution (issue 72): ``case`` trained (with ``evaluation.estimate``, its
    flag calibrated on its test set) and scored at its training grid on the loads of
    :func:`sciml.equations.plate_reference.ood_loads.loads` (``grf`` new draws of its own kind, ``patches`` patches of
    each size down to point-like, the uniform and hydrostatic loads, single sine modes) against Navier's series
    (``terms`` terms): per kind (``grf``, ``patch_large``, ..., ``mode_1_5``) the mean true error (``<kind>_error``),
    estimate, loads flagged and true error after ``steps`` steps of refinement (``load_run(...).predict(x,
    refine=steps)``); ``flag_misses``: loads more than 10 % off but not flagged; ``worse``: loads the refinement
    made worse; the seconds per input of a prediction with its estimate and of a refinement (compiled before the
    clock runs). ``resolution``: the grid the loads are given and refined on (default the training grid; one of
    ``data.resolutions``, whose flag threshold the test set calibrated). A case with ``data.params.edges: clamped``
    is scored against finite elements instead (:func:`plate_references`; ``<kind>_reference_error``: their
    error on the simply supported plate, 0 for the series). ``sampling``: how the loads are put on the
    grid (``ood_loads.SAMPLINGS``: their values at the points, or ``work``, the values whose quadrature is each
    load's exact work, which the grid's energy needs for a load with a jump). The bending moments too (the goal's
    3e-2, session 51): ``<kind>_moments_error`` and ``<kind>_refined_moments_error``, the mean over a kind's loads of
    the largest of the rel-L2 errors of ``M_x, M_y, M_xy`` at the grid points (the trained weights' and the kept
    ones', derived from the decoded field by the Taylor engine), against the series' or the finite elements'
    moments; ``refined_moments_error_max`` over all loads. ``method``, ``lr``: the refinement's method and, for
    ``weights``, first learning rate (None: ``predict``'s). The trained run stays in ``folder`` and is used again
    (None: a temporary folder)."""
    from sciml import load_run
    from sciml.equations.plate_reference import ood_loads, random_loads

    ood_loads.checked(sampling)  # before the training
    cfg, out = trained_with_estimate(case, overrides, folder or tempfile.mkdtemp(prefix="operator-ood-"))
    model, s = load_run(out), resolution or cfg.data.resolution
    items = ood_loads.loads(s, seed, terms, grf, patches, sampling=sampling)
    grid = np.linspace(0.0, 1.0, s)
    x = np.stack([q for _, _, q in items])[..., None].astype(np.float32)
    kinds = [k for k, _, _ in items]
    edges, D, nu = (cfg.data.params.get(k, v) for k, v in (("edges", "simply_supported"), ("D", 1.0), ("nu", 0.3)))
    if edges == "clamped":  # finite elements, their own error measured where the series is exact
        truth = [plate_references(f, c, grid, D, nu, fields=MOMENTS) for _, c, f in
                 ood_loads.drawn(seed, terms, grf, patches)]
        fields, off = [t[0] for t in truth], np.array([t[1] for t in truth])
    else:
        fields = [random_loads.solution(c, grid, D, nu) for _, c, _ in items]
        off = np.zeros(len(items))
    w, moments = np.stack([f["w"] for f in fields]), {k: np.stack([f[k] for f in fields]) for k in MOMENTS}
    metrics, rows = scored_out_of_distribution(model, kinds, x, w, steps, moments, lr, method)
    for row, e in zip(rows, off):
        row["reference_error"], row["reference_trusted"] = float(e), bool(e <= REFERENCE_TRUST)
    metrics.update(reference_trust(kinds, off, [r["refined_error"] for r in rows]))
    return {"metrics": metrics, "loads": rows, "edges": edges}


REFERENCE_TRUST = 1e-3  # a reference is trusted where its solver's own error is at most this (a tenth of 1e-2)


def reference_trust(kinds, off, refined, trust: float = REFERENCE_TRUST) -> dict:
    """Per kind of load its reference's own error (``<kind>_reference_error``, the mean; 0 for Navier's series)
    and whether the reference is trusted (``<kind>_reference_trusted``: every load's at most ``trust``; the clamped
    plate's patches were not by finite differences, 0.5-41 % off); ``refined_error_max_trusted``: the largest
    refined error over the loads of trusted references (NaN if none), ``untrusted``: the loads not trusted."""
    kinds, off, refined = np.asarray(kinds), np.asarray(off, float), np.asarray(refined, float)
    trusted = off <= trust
    out: dict = {"refined_error_max_trusted": float(refined[trusted].max()) if trusted.any() else float("nan"),
                 "untrusted": int((~trusted).sum())}
    for k in dict.fromkeys(kinds.tolist()):
        out.update({f"{k}_reference_error": float(off[kinds == k].mean()),
                    f"{k}_reference_trusted": bool(trusted[kinds == k].all())})
    return out


FEM_H = 1.0 / 32  # the clamped references' element side (docs/notes/fem_reference.md, "Patch loads")
MOMENTS = ("mx", "my", "mxy")  # the bending moments the plate studies score beside w


def plate_references(load, q_mn: np.ndarray, grid: np.ndarray, D: float = 1.0, nu: float = 0.3,
                     h: float = FEM_H, fields: tuple = ()) -> tuple:
    """``(w of the clamped square under load(x, y) on the closed grid, the same solver's rel-L2 error on the simply
    supported square against Navier's series of q_mn)``; with ``fields`` (names among ``mx, my, mxy``) the first item
    is ``{"w": w, name: the same solve's field, ...}``: Argyris' element on a structured mesh of side ``h`` whose
    lines include the load's jumps (``load.lines()`` where it has them: a patch), so that a patch load is smooth on
    every element (:func:`sciml.solvers.classical.fem.plate.on_rectangle`; the simply supported twin within 3e-7 of
    the series at h = 1/32, where finite differences sampling the load at their points were 0.5-41 % off)."""
    from sciml.equations.plate_reference import random_loads
    from sciml.solvers.classical.fem.plate import on_rectangle

    xs, ys = load.lines() if hasattr(load, "lines") else ((), ())
    X, Y = np.meshgrid(grid, grid, indexing="ij")
    points, shape = np.stack([X.ravel(), Y.ravel()], axis=1), X.shape
    solved = {edges: on_rectangle((grid[0], *xs, grid[-1]), (grid[0], *ys, grid[-1]), edges, D, nu, load,
                                  h).fields(points) for edges in ("clamped", "simply_supported")}
    series = random_loads.solution(q_mn, grid, D, nu)["w"]
    off = float(np.linalg.norm(solved["simply_supported"]["w"].reshape(shape) - series) / np.linalg.norm(series))
    clamped = {k: solved["clamped"][k].reshape(shape) for k in ("w", *fields)}
    return (clamped if fields else clamped["w"]), off


@study
def darcy_pino_ood(case="darcy_pino_quick", overrides=(), steps=200, grf=4, seed=1, folder=None,
                   resolution=None) -> dict:
    """The Darcy PINO out of its distribution (issue 72): ``case`` trained (with ``evaluation.estimate``, its flag
    calibrated on its test set) and scored at its training grid on the coefficients of
    :func:`sciml.solvers.classical.darcy_kinds.coefficients` (``grf`` new draws of its own kind, two each of a
    higher contrast, a shorter correlation, smooth fields, constants, an inclusion, layers) against the
    finite-difference solver that made its data (on the grid it solved them on, ``data.solver_grid`` times the
    generator's ``r``, subsampled to the training grid as they were), per kind as
    :func:`plate_operator_ood` reports (``inputs`` for its ``loads``), and ``<kind>_grid_floor``: the solver's own
    answer on the training grid against the truth, the error that refining by the physics on that grid comes down
    to. ``resolution``: the grid the inputs are given and refined on (default the training grid; one of the
    dataset's grids, ``data.resolutions``, whose flag threshold the test set calibrated). The trained run stays in
    ``folder`` and is used again (None: a temporary folder)."""
    from sciml import load_run
    from sciml.solvers.classical import darcy, darcy_kinds

    cfg, out = trained_with_estimate(case, overrides, folder or tempfile.mkdtemp(prefix="darcy-ood-"))
    params, s, solved = cfg.data.params, resolution or cfg.data.resolution, cfg.data.solver_grid
    r = int(params.get("r", 1))  # the generator solves on the grid r times finer than the samples' solver grid
    step = r * (solved - 1) // (s - 1)
    items = darcy_kinds.coefficients((solved - 1) * r + 1, seed, grf)
    a = np.stack([c for _, c in items])
    u = darcy.solve(a, params.get("f", 1.0), params.get("averaging", "arithmetic"))[:, ::step, ::step]
    x = a[:, ::step, ::step, None].astype(np.float32)
    kinds = [k for k, _ in items]
    metrics, rows = scored_out_of_distribution(load_run(out), kinds, x, u, steps)
    # the scheme's own answer on the training grid, to which the physics there refines: its distance from the truth
    coarse = darcy.solve(x[..., 0].astype(float), params.get("f", 1.0), params.get("averaging", "arithmetic"))
    floor = np.linalg.norm((coarse - u).reshape(len(u), -1), axis=1) / np.linalg.norm(u.reshape(len(u), -1), axis=1)
    for row, f in zip(rows, floor):
        row["grid_floor"] = float(f)
    metrics.update({f"{k}_grid_floor": float(np.mean(floor[np.asarray(kinds) == k])) for k in dict.fromkeys(kinds)})
    return {"metrics": metrics, "inputs": rows}


def trained_with_estimate(case, overrides, folder: str) -> tuple[Any, str]:
    """``(config, run folder)``: operator ``case`` with ``overrides`` trained in ``folder/run`` on its data made in
    ``folder``, with ``evaluation.estimate`` (its flag calibrated on its test set); a run already there is kept."""
    from sciml import cases
    from sciml.solvers.fno import data, run

    cfg: Any = cases.load(case, [*overrides, f"data.path={os.path.join(folder, 'data.h5')}",
                                 "evaluation.estimate=true", "evaluation.plots=0"]).config
    out = os.path.join(folder, "run")
    if not os.path.exists(os.path.join(out, "summary.json")):
        data.write(cfg.data, cfg.data.path)
        run.train(cfg, out, quiet=True)
    return cfg, out


def scored_out_of_distribution(model, kinds: list[str], x: np.ndarray, truth: np.ndarray, steps: int,
                               derived: dict | None = None, lr: float | None = None,
                               method: str | None = None) -> tuple:
    """``(metrics, rows)`` of a trained operator (``load_run``) on inputs ``x (n, s, s, 1)`` of ``kinds`` whose
    answers are ``truth (n, s, s)``: each input's relative L2 error, estimate, flag and error after ``steps`` of
    refinement (a row each), summed up per kind (:func:`ood_summary`) with the flag threshold and the seconds per
    input of a prediction with its estimate and of a refinement (compiled before the clock runs). ``derived``:
    the true derived fields (the plate's moments, ``{name: (n, s, s)}``), scored as :func:`plate_operator_ood` says
    (``moments_error``, ``refined_moments_error`` in each row: the largest over the fields). ``lr``, ``method``: the
    refinement's first learning rate and method (None: ``predict``'s)."""
    import time

    per_sample = lambda a: np.linalg.norm(a.reshape(len(a), -1), axis=1)
    rel = lambda got, want: per_sample(got[..., 0] - want) / per_sample(want)  # each sample's rel-L2
    error = lambda p: rel(p, truth)
    options = {"lr": lr, "method": method}
    model.predict(x, estimate=True), model.predict(x[:1], refine=min(steps, 10), **options)  # compiled off the clock
    t0 = time.perf_counter()
    plain = model.predict(x, estimate=True)
    t1 = time.perf_counter()
    refined = model.predict(x, refine=steps, **options)
    t2 = time.perf_counter()
    true, after = error(plain["prediction"]), error(refined["prediction"])
    metrics = {**ood_summary(kinds, true, plain["estimate"], plain["flagged"], after),
               "threshold": float(plain["threshold"][0]), "predict_s_per_input": (t1 - t0) / len(x),
               "refine_s_per_input": (t2 - t1) / len(x)}
    rows = [{"kind": k, "error": float(e), "estimate": float(g), "flagged": bool(f), "refined_error": float(a),
             "refined_estimate": float(r), "energy": float(n), "refined_energy": float(m)}
            for k, e, g, f, a, r, n, m in zip(kinds, true, plain["estimate"], plain["flagged"], after,
                                              refined["estimate"], refined["energy_before"], refined["energy"])]
    if derived:
        trained = model.derived(x)
        worst = {when: np.max([rel(got[k], v) for k, v in derived.items()], axis=0)
                 for when, got in (("moments_error", trained), ("refined_moments_error", refined))}
        for i, row in enumerate(rows):
            row.update({when: float(e[i]) for when, e in worst.items()})
        at = np.asarray(kinds)
        for kind in dict.fromkeys(kinds):
            metrics.update({f"{kind}_{when}": float(e[at == kind].mean()) for when, e in worst.items()})
        metrics["refined_moments_error_max"] = float(worst["refined_moments_error"].max())
    return metrics, rows


def ood_summary(kinds, true, estimate, flagged, refined, target: float = 0.10) -> dict:
    """Per kind of load the mean true error, estimate and error after refinement and the loads flagged
    (``<kind>_error``, ``_estimate``, ``_refined_error``, ``_flagged``); ``spearman``: the rank correlation of the
    estimates with the true errors over all loads; ``flag_misses``: loads above ``target``
    true error not flagged; ``worse``: loads whose refined error exceeds their error by more than 0.1 % (a load left
    as trained differs by float32 round-off, one input against a batch: 1e-5); ``error_mean`` and
    ``refined_error_mean`` over all."""
    from scipy import stats

    kinds, true, estimate = np.asarray(kinds), np.asarray(true, float), np.asarray(estimate, float)
    flagged, refined = np.asarray(flagged, bool), np.asarray(refined, float)
    metrics: dict = {"spearman": float(stats.spearmanr(true, estimate).statistic) if len(true) > 2 else float("nan"),
                     "flag_misses": int(np.sum((true > target) & ~flagged)),
                     "worse": int(np.sum(refined > true * (1 + 1e-3))),
                     "error_mean": float(true.mean()), "refined_error_mean": float(refined.mean())}
    for kind in dict.fromkeys(kinds.tolist()):
        at = kinds == kind
        metrics.update({f"{kind}_error": float(true[at].mean()), f"{kind}_estimate": float(estimate[at].mean()),
                        f"{kind}_flagged": int(flagged[at].sum()), f"{kind}_refined_error": float(refined[at].mean())})
    return metrics


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
