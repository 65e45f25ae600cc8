r"""Test-time refinement by correcting the decoded field (issue 72): one input's answer improved by the physics'
energy over a space of fields that holds the operator's own, solved by conjugate gradients.

The refined field is

.. math:: w = (1 + a)\,w_0 + E^p\,c, \qquad c(x) = \sum_k \hat c(k)\, e^{2\pi i k\cdot x / 2} \text{ (its real part)},

``w_0`` the operator's decoded field (:meth:`.model.Operator.field`), ``E^p`` the edge factor the model imposes its
edge conditions with (``model.vanish_on_edges``: ``p`` 1 on simply supported edges, 2 on clamped ones, so that every
``w`` keeps them), and ``c`` a trigonometric series of period 2 on the unit square, ``2(s - 1)`` modes an axis
(:class:`Basis`: sines and cosines up to the grid's Nyquist ``sin((s - 1)πx)``, the band of the operator's own
field; no periodicity imposed on [0, 1]). The plate's total potential energy is quadratic in ``(a, ĉ)``, so
minimising it is one linear system, ``H (a, ĉ) = g``, which :func:`conjugate_gradients` solves with products by
the energy's Hessian (forward over reverse autodiff), starting from the operator's answer (``a = 0, ĉ = 0``). The
energy is the plate's (:meth:`.physics.Plate.energy`) with the band-limited load's work and its bending by
Gauss-Legendre (:data:`GAUSS` points in each cell of the grid :data:`REFINE` times finer): the trapezoid rule's
error grows with the field's frequency and conjugate gradients find it (a point-like patch's moments 3.6 % off
after 300 iterations, 8.1 % after 3000, the energy falling all the while; with Gauss 2.2 % and 0.8 %).

Why the operator's field as a whole (``a``) and not only its correction: the decoded field is the projection's
activation of a series, not a series, so it holds what no ``c`` represents; where it is far off (a point-like
patch at 100-200 %, its moments 17-29 times the truth's) ``a`` goes to -1 and the answer is the Ritz solution of
the series alone, where it is close the operator's field stays. The coefficients are scaled for the solver: ``ĉ(k)
= v(k) / (1 + |k|²/4)`` (the energy weighs a mode about as ``|k|⁴``), and ``a`` by the Hessian's diagonal against
the constant mode's (:func:`start`; one order of magnitude off and ``a`` had not reached -1 in 1000 iterations).

Against fine-tuning the weights (:func:`.estimate.refiner`): on the full clamped run's hard loads the weights took
1000 Adam steps and 69 s an input for ``w`` within 3.5 % and moments 4-23 %; the correction 1000 iterations and
7 s an input through ``predict`` (4 s the iterations alone) for ``w`` within 0.13 % and moments within 2.8 %. The
default only on a grid finer than the training grid (:func:`.estimate.default_method`): on the 17² grid of
``plate_operator_quick``'s training it made one of 50 test loads 3.3 times worse, where the grid's discrete problem
is further from the truth than the operator (docs/notes/operator_estimate.md, sessions 53-54).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from sciml.nn import fno_field
from sciml.nn.fno_field import Field

from .model import Operator, edge_factor

GAUSS = 3  # Gauss-Legendre points in each cell of the energy's fine grid
REFINE = 2  # the energy's fine grid: this many times finer than the inputs'
SMOOTHING = 4.0  # k0²: a mode's coefficient is its variable over 1 + |k|² / k0²


@dataclasses.dataclass(frozen=True)
class Basis:
    """The correction ``E^p c`` of fields on the closed ``s``-point grid (the module's docstring)."""

    s: int
    power: int  # of the edge factor

    @property
    def size(self) -> int:
        return 2 * (self.s - 1)

    def zeros(self, dtype) -> jax.Array:
        """The variables of a zero correction: ``(N, N // 2 + 1, 2)``, the real and imaginary parts of ``ĉ``."""
        return jnp.zeros((self.size, self.size // 2 + 1, 2), dtype)

    def field(self, v) -> Field:
        """``E^p c`` of the variables ``v``, values ``(..., 1, 1)`` (one sample, one channel)."""
        n = self.size
        k1, k2 = np.fft.fftfreq(n, 1.0 / n), np.arange(n // 2 + 1)
        scale = jnp.asarray(1.0 / (1.0 + (k1[:, None] ** 2 + k2[None, :] ** 2) / SMOOTHING), v.dtype)
        re, im = ((v[..., i] * scale)[..., None, None] for i in (0, 1))
        series = fno_field.interpolant(re, im, (n, n), (1.0 / (self.s - 1),) * 2)
        return series.then(lambda values, x: values * edge_factor(x, self.power)[..., None, None])

    def on_grid(self, v, dtype) -> jax.Array:
        """The correction at the grid's points, ``(1, s, s, 1)`` (the dataset's layout)."""
        axis = np.linspace(0.0, 1.0, self.s)
        return self.field(v)(jnp.asarray(fno_field.grid_points([axis, axis]), dtype)).reshape(1, self.s, self.s, 1)


def corrected(op: Operator, basis: Basis) -> Operator:
    """The operator whose parameters are ``{"weights": the trained ones, "scale", "a", "c"}`` and whose answer is
    ``(1 + scale · a) w_0 + E^p c`` (channel 0 corrected; :func:`lift` makes them)."""

    def share(p):
        return 1.0 + p["scale"] * p["a"]

    def correction(values, channels: int):  # channel 0 of the outputs' last axis
        return jnp.pad(values, [(0, 0)] * (values.ndim - 1) + [(0, channels - 1)])

    def field(p, st, x):
        base = op.field(p["weights"], st, x)
        extra = basis.field(p["c"])
        if isinstance(base, Field):
            return base.then(lambda values, _: values * share(p)).plus(
                extra.then(lambda values, _: correction(values, st["y_mean"].shape[-1])))
        return lambda points: base(points) * share(p) + correction(extra(points), st["y_mean"].shape[-1])

    def predict(p, st, x):
        out = op.predict(p["weights"], st, x)
        return out * share(p) + correction(basis.on_grid(p["c"], out.dtype), out.shape[-1])

    return Operator(op.init, predict, op.stats, field)


def lift(params, dtype, basis: Basis) -> dict:
    """The trained ``params`` as the corrected operator's, no correction yet (``scale`` 1 until :func:`start`)."""
    return {"weights": params, "scale": jnp.ones((), dtype), "a": jnp.zeros((), dtype), "c": basis.zeros(dtype)}


def energy_of(physics):
    """The correction's energy: ``physics``' own (a plate's) with the band-limited load's work and its bending by
    Gauss-Legendre on the :data:`REFINE` times finer grid (the module's docstring)."""
    return dataclasses.replace(physics, work="band", refine=REFINE, gauss=GAUSS).energy


def _variables(p):
    return {"a": p["a"], "c": p["c"]}


def _with(p, v):
    return {**p, **v}


def _dot(u, v):
    return sum(jnp.vdot(a, b) for a, b in zip(jax.tree_util.tree_leaves(u), jax.tree_util.tree_leaves(v)))


@dataclasses.dataclass(frozen=True)
class Iterations:
    """What :func:`.estimate.refine` asks of its solver beside its steps (as of an optax transformation)."""

    init: Callable  # params -> state


def conjugate_gradients(op: Operator, loss: Callable) -> tuple[Callable, Iterations, Callable]:
    """``(start, solver, advance)`` of the conjugate gradients on ``loss(field, x)`` (quadratic in the correction):
    ``start(params, stats, x)``, the lifted parameters with ``a``'s scale set by the Hessian's diagonal (the
    module's docstring); ``solver.init(params) -> state``; ``advance(params, state, stats, x, n) -> (params, state)``,
    ``n`` iterations, jitted (the first computes the residual the state starts from)."""

    def objective(v, p, stats, x):
        return loss(op.field(_with(p, v), stats, x), x)

    gradient = jax.grad(objective)

    def hessian_times(v, d, p, stats, x):
        return jax.jvp(lambda u: gradient(u, p, stats, x), (v,), (d,))[1]

    @jax.jit
    def start(params, stats, x):
        v = _variables(params)
        unit = jax.tree_util.tree_map(jnp.zeros_like, v)
        share, constant = {**unit, "a": jnp.ones_like(v["a"])}, {**unit, "c": unit["c"].at[0, 0, 0].set(1.0)}
        along_a, along_c = (_dot(hessian_times(v, e, params, stats, x), e) for e in (share, constant))
        scale = jnp.sqrt(along_c / along_a)  # 1 where that is no number (a load of no work at the grid's points)
        return {**params, "scale": jnp.where(jnp.isfinite(scale) & (scale > 0), scale, 1.0).astype(v["a"].dtype)}

    def init(params):
        v = _variables(params)
        return {"r": v, "d": v, "rr": jnp.zeros((), v["a"].dtype), "started": jnp.zeros((), bool)}

    @jax.jit
    def advance(params, state, stats, x, n):
        def fresh():
            r = jax.tree_util.tree_map(jnp.negative, gradient(_variables(params), params, stats, x))
            return r, r, _dot(r, r)

        r, d, rr = jax.lax.cond(state["started"], lambda: (state["r"], state["d"], state["rr"]), fresh)

        def body(_, carry):
            v, r, d, rr = carry
            hd = hessian_times(v, d, params, stats, x)
            curvature = _dot(d, hd)
            step = jnp.where(curvature > 0, rr / jnp.where(curvature > 0, curvature, 1.0), 0.0)
            v = jax.tree_util.tree_map(lambda a, b: a + step * b, v, d)
            r = jax.tree_util.tree_map(lambda a, b: a - step * b, r, hd)
            new = _dot(r, r)
            beta = jnp.where(rr > 0, new / jnp.where(rr > 0, rr, 1.0), 0.0)
            return v, r, jax.tree_util.tree_map(lambda a, b: a + beta * b, r, d), new

        v, r, d, rr = jax.lax.fori_loop(0, n, body, (_variables(params), r, d, rr))
        return _with(params, v), {"r": r, "d": d, "rr": rr, "started": jnp.ones((), bool)}

    return start, Iterations(init), advance
