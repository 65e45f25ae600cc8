"""Assembling a PINN problem from a case: network, collocation batches, loss terms and predictions.

Everything here is a pure function of ``(params, batch)``. The derivative requests of each residual are
collected once (:func:`sciml.equations.fields.collect`) and each group of points is differentiated in one
planned call of the autodiff engine.

A batch holds nondimensional points (host NumPy arrays; the driver places them on the devices): ``interior`` (N, D); ``parts[part] = {"x", "n"}`` (points and outward
normals) for every part whose condition has residuals; ``points[name]`` for the equation's point sets
(plate corners, a pressure gauge); ``periodic["a|b"] = {"a", "b"}`` (paired points on periodic parts).
Loss terms are named ``<interior residual>`` (group ``pde``), ``<part>.<quantity>``, ``<point set>.<q>``
and ``periodic.<a|b>.<q>`` (group ``bc``).

Sampled points (``interior``, ``parts``, ``periodic``) are cut along the data axis of the device mesh
(:meth:`Problem.place`); the equation's fixed ``points`` are the same everywhere and replicated. Under
several processes ``sample(rng, share)`` draws this process's share of every count.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile import Policy
from sciml import equations
from sciml.equations.fields import collect, evaluator
from sciml.errors import ConfigError

from . import model
from .config import PinnCase
from .geometry import build_geometry


@dataclass(frozen=True)
class Problem:
    """The pieces of one PINN case (all functions are pure and jit-able)."""

    config: PinnCase
    equation: object
    geometry: object
    init: Callable  # key -> params
    sample: Callable  # (numpy Generator, share: count -> local count) -> batch (nondimensional, host arrays)
    loss: Callable  # (params, batch, key[, adaptive weights]) -> (total, {term: mean square})
    predict: Callable  # (params, physical points (N, d)) -> {field: values}
    terms: tuple[str, ...]
    term_losses: Callable | None = None  # (params, batch, key) -> {term: loss}, before weighting
    weights: dict = field(default_factory=dict)  # fixed weight per term
    residual_score: Callable | None = None  # (params, interior points (N, d) nondim) -> (N,)
    derived: Callable | None = None  # (params, nondimensional points (N, d)) -> {field: values}, jit-able

    def extend(self, batch: dict, points) -> dict:
        """``batch`` with physical ``points`` added to its interior points (adaptive refinement)."""
        if points is None or not len(points):
            return batch
        x = np.asarray(self.equation.to_nondim(np.asarray(points, float)), batch["interior"].dtype)
        return {**batch, "interior": np.concatenate([batch["interior"], x])}

    def place(self, batch: dict, mesh) -> dict:
        """The batch on the devices of ``mesh``: sampled points sharded along the data axis (each process
        gives its share), the fixed point sets replicated."""
        from sciml import parallel

        sampled = {k: v for k, v in batch.items() if k != "points"}
        return {**parallel.shard(sampled, mesh), "points": parallel.replicate(batch["points"], mesh)}


def _group(term: str) -> str:
    return "pde" if "." not in term else "bc"


def _weights(cfg: PinnCase, terms: tuple[str, ...]) -> dict[str, float]:
    known = set(terms) | {_group(t) for t in terms}
    for key in cfg.loss.weights:
        if key not in known:
            import difflib
            close = difflib.get_close_matches(key, sorted(known), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; terms are {sorted(known)}"
            raise ConfigError("unknown loss term" + hint, key=f"loss.weights.{key}")
    w = cfg.loss.weights
    return {t: float(w.get(t, w.get(_group(t), 1.0))) for t in terms}


def _causal(cfg, equation, geometry, interior_terms):
    """``(per-point residuals, interior points) -> {term: causally weighted loss}`` or None."""
    c = cfg.loss.causal
    if c is None:
        return None
    t0, t1 = geometry.time
    corners = np.zeros((2, geometry.dim))
    corners[:, -1] = t0, t1
    th0, th1 = (float(v) for v in equation.to_nondim(corners)[:, -1])

    def weigh(res: dict, x):
        idx = jnp.clip(jnp.floor((x[:, -1] - th0) / (th1 - th0) * c.chunks), 0, c.chunks - 1).astype(jnp.int32)
        count = jnp.maximum(jax.ops.segment_sum(jnp.ones_like(x[:, -1]), idx, c.chunks), 1.0)
        per_chunk = {t: jax.ops.segment_sum(jnp.square(res[t]), idx, c.chunks) / count for t in interior_terms}
        total = sum(per_chunk.values())
        before = jnp.cumsum(total) - total  # losses of the earlier slabs
        w = jax.lax.stop_gradient(jnp.exp(-c.epsilon * before))
        return {t: jnp.mean(w * per_chunk[t]) for t in interior_terms}

    return weigh


def assemble(cfg: PinnCase) -> Problem:
    geometry = build_geometry(cfg.geometry)
    equation = equations.create(cfg.equation, geometry)
    dtype = Policy.of(cfg.dtype).param_dtype
    fields, coords = equation.fields, equation.coords
    aliases = equation.aliases or None
    init, apply = model.build(cfg.model, len(coords), len(fields), dtype)

    def net(params):
        return lambda xh: apply(params, xh)

    options = {"mode": cfg.autodiff.mode}

    def ad_options(key):
        if cfg.autodiff.mode == "stochastic":
            return {**options, "key": key, "samples": cfg.autodiff.samples}
        return options

    def fields_at(f, requests, key, x):
        return evaluator(f, requests, fields, coords, aliases, **ad_options(key))(x)

    def requests(fn):
        return collect(fn, fields, coords, aliases=aliases)

    # what each residual asks for, collected once; parts whose condition has no residual are not sampled
    dim = len(coords)
    interior_req = requests(equation.interior)
    part_req = {}
    for p in geometry.parts:
        probe = {}
        req = requests(lambda d, p=p: probe.update(equation.boundary(p, d, jnp.ones((1, dim)))))
        if probe:
            part_req[p] = req
    parts = tuple(part_req)
    point_sets = {name: (np.asarray(pts, float).reshape(-1, dim), fn)
                  for name, (pts, fn) in equation.point_sets().items()
                  if len(pts)}
    point_req = {name: requests(fn) for name, (_, fn) in point_sets.items()}
    pairs = [tuple(p) for p in equation.periodic]
    pair_req = {f"{a}|{b}": requests(lambda d: equation.periodic_residual(d, d)) for a, b in pairs}
    offsets = {f"{a}|{b}": geometry.periodic_offset(a, b) for a, b in pairs}
    derived_req = requests(equation.derived)

    def count(part):
        return cfg.sampling.parts.get(part, cfg.sampling.boundary)

    def sample(rng: np.random.Generator, share: Callable[[int], int] = lambda n: n) -> dict:
        s = cfg.sampling
        count_here = lambda part: share(count(part))
        interior = geometry.interior(share(s.interior), rng, s.method)
        batch = {"interior": equation.to_nondim(interior), "parts": {}, "points": {}, "periodic": {}}
        for p in parts:
            pts, normals = geometry.boundary(p, count_here(p), rng, s.method)
            batch["parts"][p] = {"x": equation.to_nondim(pts), "n": normals}
        for name, (pts, _) in point_sets.items():
            batch["points"][name] = equation.to_nondim(pts)
        for (a, b) in pairs:
            name = f"{a}|{b}"
            pts, _ = geometry.boundary(a, count_here(a), rng, s.method)
            batch["periodic"][name] = {"a": equation.to_nondim(pts), "b": equation.to_nondim(pts + offsets[name])}
        return jax.tree_util.tree_map(lambda a: np.asarray(a, np.dtype(dtype)), batch)

    n_keys = 1 + len(parts) + len(point_sets) + 2 * len(pairs)

    def residuals(params, batch, key) -> dict:
        keys = iter(jax.random.split(key, n_keys))
        f = net(params)
        out = dict(equation.interior(fields_at(f, interior_req, next(keys), batch["interior"])))
        for p in parts:
            b = batch["parts"][p]
            d = fields_at(f, part_req[p], next(keys), b["x"])
            out.update({f"{p}.{name}": r for name, r in equation.boundary(p, d, b["n"]).items()})
        for name, (_, fn) in point_sets.items():
            d = fields_at(f, point_req[name], next(keys), batch["points"][name])
            out.update({f"{name}.{q}": r for q, r in fn(d).items()})
        for name, pb in batch["periodic"].items():
            da = fields_at(f, pair_req[name], next(keys), pb["a"])
            db = fields_at(f, pair_req[name], next(keys), pb["b"])
            out.update({f"periodic.{name}.{q}": r for q, r in equation.periodic_residual(da, db).items()})
        return out

    # term names, from one abstract evaluation
    probe = jax.eval_shape(lambda k: residuals(init(k), sample(np.random.default_rng(0)), k), jax.random.PRNGKey(0))
    terms = tuple(sorted(probe, key=lambda t: _group(t) != "pde"))  # residuals first, then conditions
    weights = _weights(cfg, terms)
    interior_terms = tuple(t for t in terms if _group(t) == "pde")
    causal = _causal(cfg, equation, geometry, interior_terms)

    def term_losses(params, batch, key) -> dict:
        res = residuals(params, batch, key)
        per_term = {t: jnp.mean(jnp.square(r)) for t, r in res.items()}
        if causal is not None:
            per_term.update(causal(res, batch["interior"]))
        return per_term

    def loss(params, batch, key, adaptive=None):
        per_term = term_losses(params, batch, key)
        if adaptive is None:
            total = sum(weights[t] * v for t, v in per_term.items())
        else:
            total = sum(weights[t] * adaptive[t] * v for t, v in per_term.items())
        return total, per_term

    def residual_score(params, xh):
        d = fields_at(net(params), interior_req, jax.random.PRNGKey(0), xh)
        return sum(jnp.square(r) for r in equation.interior(d).values())

    predict_mode = "taylor" if cfg.autodiff.mode == "stochastic" else cfg.autodiff.mode
    derived = jax.jit(lambda p, xh: equation.derived(
        evaluator(net(p), derived_req, fields, coords, aliases, mode=predict_mode)(xh)))

    def predict(params, points, chunk: int = 16384) -> dict:
        xh = jnp.asarray(equation.to_nondim(np.asarray(points, float)), dtype)
        pieces = [derived(params, xh[i:i + chunk]) for i in range(0, len(xh), chunk)]
        return {k: np.concatenate([np.asarray(p[k]) for p in pieces]) for k in pieces[0]}

    return Problem(cfg, equation, geometry, init, sample, loss, predict, terms, term_losses, weights,
                   jax.jit(residual_score), derived)
