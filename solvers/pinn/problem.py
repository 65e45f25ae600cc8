"""Assembling a PINN problem from a case: network, collocation batches, loss terms and predictions.

Everything here is a pure function of ``(params, batch)``. The derivative requests of each residual are
collected once (:func:`sciml.equations.fields.collect`) and each group of points is differentiated in one
planned call of the autodiff engine.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from sciml.equations import EQUATIONS
from sciml.equations.fields import collect, evaluator
from sciml.errors import ConfigError
from sciml.nn import mlp

from .config import PinnCase
from .geometry import GEOMETRIES


@dataclass(frozen=True)
class Problem:
    """The pieces of one PINN case (all functions are pure and jit-able)."""

    config: PinnCase
    equation: object
    geometry: object
    init: Callable  # key -> params
    sample: Callable  # numpy Generator -> batch (a dict of arrays, nondimensional)
    loss: Callable  # (params, batch, key) -> (total, {term: mean square})
    predict: Callable  # (params, physical points (N, d)) -> {field: values}
    terms: tuple[str, ...]


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


def assemble(cfg: PinnCase) -> Problem:
    gcfg_cls, geo_cls = GEOMETRIES[cfg.geometry.type]
    geometry = geo_cls.from_config(cfg.geometry)
    _, eq_cls = EQUATIONS[cfg.equation.type]
    equation = eq_cls(cfg.equation, geometry.bounds)
    dtype = jnp.float64 if cfg.dtype == "float64" else jnp.float32
    fields, coords = equation.fields, equation.coords
    sizes = [len(coords), *cfg.model.hidden, len(fields)]

    def init(key):
        return mlp.init(key, sizes, dtype)

    def net(params):
        return lambda xh: mlp.apply(params, xh, cfg.model.activation)

    options = {"mode": cfg.autodiff.mode}

    def ad_options(key):
        if cfg.autodiff.mode == "stochastic":
            return {**options, "key": key, "samples": cfg.autodiff.samples}
        return options

    # what each residual asks for, collected once
    parts = geometry.parts
    interior_req = collect(equation.interior, fields, coords)
    part_req = {p: collect(lambda d, p=p: equation.boundary(p, d, jnp.ones((1, len(coords)))), fields, coords)
                for p in parts}
    corners = np.asarray(equation.corners()) if hasattr(equation, "corners") else np.zeros((0, len(coords)))
    corner_req = collect(equation.corner, fields, coords) if len(corners) else ()
    derived_req = collect(equation.derived, fields, coords)

    def sample(rng: np.random.Generator) -> dict:
        s = cfg.sampling
        batch = {"interior": equation.to_nondim(geometry.interior(s.interior, rng, s.method)), "parts": {}}
        for p in parts:
            pts, normals = geometry.boundary(p, s.boundary, rng, s.method)
            batch["parts"][p] = {"x": equation.to_nondim(pts), "n": normals}
        if len(corners):
            batch["corners"] = equation.to_nondim(corners)
        return jax.tree_util.tree_map(lambda a: jnp.asarray(a, dtype), batch)

    def residuals(params, batch, key) -> dict:
        keys = jax.random.split(key, len(parts) + 2)
        f = net(params)
        out = {}
        d = evaluator(f, interior_req, fields, coords, **ad_options(keys[0]))(batch["interior"])
        out.update(equation.interior(d))
        for k, p in zip(keys[2:], parts):
            b = batch["parts"][p]
            d = evaluator(f, part_req[p], fields, coords, **ad_options(k))(b["x"])
            out.update({f"{p}.{name}": r for name, r in equation.boundary(p, d, b["n"]).items()})
        if "corners" in batch:
            d = evaluator(f, corner_req, fields, coords, **ad_options(keys[1]))(batch["corners"])
            out.update({f"corner.{name}": r for name, r in equation.corner(d).items()})
        return out

    # term names, from one abstract evaluation
    probe = jax.eval_shape(lambda k: residuals(init(k), sample(np.random.default_rng(0)), k), jax.random.PRNGKey(0))
    terms = tuple(probe)
    weights = _weights(cfg, terms)

    def loss(params, batch, key):
        res = residuals(params, batch, key)
        per_term = {t: jnp.mean(jnp.square(r)) for t, r in res.items()}
        total = sum(weights[t] * v for t, v in per_term.items())
        return total, per_term

    predict_mode = "taylor" if cfg.autodiff.mode == "stochastic" else cfg.autodiff.mode
    derived = jax.jit(lambda p, xh: equation.derived(
        evaluator(net(p), derived_req, fields, coords, mode=predict_mode)(xh)))

    def predict(params, points, chunk: int = 16384) -> dict:
        xh = jnp.asarray(equation.to_nondim(np.asarray(points)), dtype)
        pieces = [derived(params, xh[i:i + chunk]) for i in range(0, len(xh), chunk)]
        return {k: np.concatenate([np.asarray(p[k]) for p in pieces]) for k in pieces[0]}

    return Problem(cfg, equation, geometry, init, sample, loss, predict, terms)
