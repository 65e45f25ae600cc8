"""The quasi-Newton phase's line search: optax's zoom (strong Wolfe) search with one evaluation of the loss and
its gradient per trial.

``optax.scale_by_zoom_linesearch`` (Nocedal & Wright's algorithms 3.5 and 3.6, with Hager & Zhang's approximate
decrease near a minimum) picks each trial step in one of two branches of a ``lax.cond`` (widening the interval,
or zooming into it) and evaluates the loss in each: the loss and its gradient are traced, and compiled, twice.
:func:`zoom` takes the same trials in the same order (the expansion's doubling, the zoom's cubic, quadratic or
bisection point) but chooses the trial first and evaluates it once, then keeps the bracket as optax does, so a
quasi-Newton chunk compiles the loss's gradient once inside its search. Its state is optax's
``ScaleByZoomLinesearchState`` (the value and gradient at the accepted point, read by the next step).
:func:`pieces` gives the search in pieces (:class:`Zoom`) for a loop that evaluates the loss itself (the chunk's
one evaluation site, :func:`sciml.solvers.pinn.optim.lbfgs_chunk`); :func:`zoom` runs them in a loop of its own.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax


class Search(NamedTuple):
    """One search along ``d`` from ``w``: the last trial, the bracket ``[low, high]`` and the safe step (the
    lowest value with sufficient decrease found, taken when the curvature condition never holds)."""

    trials: jax.Array  # evaluations so far
    stepsize: jax.Array
    value: jax.Array
    grad: object
    slope: jax.Array
    decrease_error: jax.Array
    curvature_error: jax.Array
    interval_found: jax.Array
    done: jax.Array
    failed: jax.Array
    low: jax.Array
    value_low: jax.Array
    slope_low: jax.Array
    high: jax.Array
    value_high: jax.Array
    slope_high: jax.Array
    cubic_ref: jax.Array
    value_cubic_ref: jax.Array
    safe_stepsize: jax.Array
    safe_value: jax.Array
    safe_grad: object
    value0: jax.Array  # the value and slope where the search started
    slope0: jax.Array


class Zoom(NamedTuple):
    """The search in pieces, for a loop that evaluates the loss where it chooses (a quasi-Newton chunk evaluates
    at one place for its line search and its refreshed values, :func:`sciml.solvers.pinn.optim.lbfgs_chunk`):
    ``start(value, grad, direction)`` a search; ``trial(search)`` its next step; ``absorb(search, step, value,
    grad, direction)`` that trial's value and gradient; ``stopped(search)``; ``result(search, state)`` the step
    found and the transform's new state (optax's ``ScaleByZoomLinesearchState``); ``init(params)`` that state."""

    init: Callable
    start: Callable
    trial: Callable
    absorb: Callable
    stopped: Callable
    result: Callable


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The critical point of the cubic through ``(a, fa)``, ``(b, fb)``, ``(c, fc)`` with slope ``fpa`` at
    ``a`` (NaN where there is none), as optax and scipy compute it."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc ** 2, -(db ** 2)], [-(dc ** 3), db ** 3]])
    big_a, big_b = jnp.dot(d1, jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc]),
                           precision=jax.lax.Precision.HIGHEST) / denom
    return a + (-big_b + jnp.sqrt(big_b * big_b - 3.0 * big_a * fpa)) / (3.0 * big_a)


def _quadmin(a, fa, fpa, b, fb):
    """The critical point of the parabola through ``(a, fa)``, ``(b, fb)`` with slope ``fpa`` at ``a``."""
    db = b - a
    return a - fpa / (2.0 * ((fb - fa - fpa * db) / db ** 2))


def zoom(**settings) -> optax.GradientTransformationExtraArgs:
    """Scale the direction by a step that satisfies the strong Wolfe conditions (optax's zoom search with its
    defaults and a first guess of 1), one evaluation of ``value_fn`` and its gradient per trial (the pieces of
    :func:`pieces` in a loop of their own)."""
    z = pieces(**settings)

    def update(updates, state, params, *, value, grad, value_fn, **extra):
        if extra:
            raise TypeError(f"zoom: unexpected keyword arguments {sorted(extra)}")
        value_and_grad = jax.value_and_grad(value_fn)

        def body(s: Search) -> Search:
            t = z.trial(s)
            v, g = value_and_grad(optax.tree.add_scale(params, t, updates))
            return z.absorb(s, t, v, g, updates)

        start = z.start(jnp.asarray(value, state.value.dtype), grad, updates)
        stepsize, new = z.result(jax.lax.while_loop(lambda s: ~z.stopped(s), body, start), state)
        return optax.tree.scale(stepsize, updates), new

    return optax.GradientTransformationExtraArgs(z.init, update)


def pieces(max_steps: int = 20, slope_rtol: float = 1e-4, curv_rtol: float = 0.9, approx_dec_rtol: float = 1e-6,
           increase_factor: float = 2.0, stepsize_precision: float = 1e-5, tol: float = 0.0) -> Zoom:
    """The zoom search (:func:`zoom`, with its settings) as the pieces of :class:`Zoom`."""

    def decrease_error(t, value, slope, value0, slope0):
        """Armijo's condition, or Hager and Zhang's approximate one near a minimum; 0 where it holds."""
        armijo = value - value0 - slope_rtol * t * slope0
        approx = jnp.maximum(slope - (2 * slope_rtol - 1.0) * slope0,
                             value - value0 - approx_dec_rtol * jnp.abs(value0))
        err = jnp.maximum(jnp.minimum(approx, armijo), 0.0)
        return jnp.where(jnp.isnan(err), jnp.inf, err)

    def curvature_error(slope, slope0):
        err = jnp.maximum(jnp.abs(slope) - curv_rtol * jnp.abs(slope0), 0.0)
        return jnp.where(jnp.isnan(err), jnp.inf, err)

    def trial(s: Search):
        """The next step: the first guess (1), then doubling until a bracket is found; inside the bracket the
        cubic's minimum, else the parabola's, else the middle, each kept off the bracket's ends."""
        widen = jnp.where(s.trials == 0, jnp.ones_like(s.stepsize), increase_factor * s.stepsize)
        delta = jnp.abs(s.high - s.low)
        left, right = jnp.minimum(s.high, s.low), jnp.maximum(s.high, s.low)
        cubic = _cubicmin(s.low, s.value_low, s.slope_low, s.high, s.value_high, s.cubic_ref, s.value_cubic_ref)
        use_cubic = (cubic > left + 0.2 * delta) & (cubic < right - 0.2 * delta)
        quad = _quadmin(s.low, s.value_low, s.slope_low, s.high, s.value_high)
        use_quad = ~use_cubic & (quad > left + 0.1 * delta) & (quad < right - 0.1 * delta)
        middle = jnp.where(use_cubic, cubic, s.cubic_ref)
        middle = jnp.where(use_quad, quad, middle)
        middle = jnp.where(~use_cubic & ~use_quad, (s.low + s.high) / 2.0, middle)
        return jnp.where(s.interval_found, middle, widen)

    def safe_step(flag, s: Search, new: Search) -> dict:
        """The safe step's fields: this trial's where ``flag``, else the one kept."""
        return _where(flag, dict(safe_stepsize=new.stepsize, safe_value=new.value, safe_grad=new.grad),
                      dict(safe_stepsize=s.safe_stepsize, safe_value=s.safe_value, safe_grad=s.safe_grad))

    def widened(s: Search, new: Search) -> Search:
        """Algorithm 3.5: the bracket from the last trial and this one (``new`` holds this trial)."""
        safe = new.decrease_error <= tol
        high_new = (new.decrease_error > 0.0) | ((new.value >= s.value) & (s.trials > 0))
        low_new = (new.slope >= 0.0) & ~high_new
        last, this = (s.stepsize, s.value, s.slope), (new.stepsize, new.value, new.slope)
        low, value_low, slope_low = jax.tree_util.tree_map(lambda a, b: jnp.where(low_new, a, b), this, last)
        high, value_high, slope_high = jax.tree_util.tree_map(lambda a, b: jnp.where(low_new, a, b), last, this)
        error = jnp.maximum(new.decrease_error, new.curvature_error)
        done = error <= tol
        return new._replace(
            interval_found=high_new | low_new | done, done=done, failed=(s.trials + 1 >= max_steps) & ~done,
            low=low, value_low=value_low, slope_low=slope_low, high=high, value_high=value_high,
            slope_high=slope_high, cubic_ref=low, value_cubic_ref=value_low, **safe_step(safe, s, new))

    def zoomed(s: Search, new: Search) -> Search:
        """Algorithm 3.6: the bracket narrowed by this trial."""
        safe = (new.decrease_error <= tol) & (new.value < s.safe_value)
        safe_part = safe_step(safe, s, new)
        done = jnp.maximum(new.decrease_error, new.curvature_error) <= tol
        high_middle = (new.decrease_error > 0.0) | (new.value >= s.value_low)
        high_low = (new.slope * (s.high - s.low) >= 0.0) & ~high_middle
        middle = dict(high=new.stepsize, value_high=new.value, slope_high=new.slope)
        high = _where(high_low, dict(high=s.low, value_high=s.value_low, slope_high=s.slope_low),
                      _where(high_middle, middle, dict(high=s.high, value_high=s.value_high, slope_high=s.slope_high)))
        low = _where(~high_middle, dict(low=new.stepsize, value_low=new.value, slope_low=new.slope),
                     dict(low=s.low, value_low=s.value_low, slope_low=s.slope_low))
        ref = _where(high_middle | high_low, dict(cubic_ref=s.high, value_cubic_ref=s.value_high),
                     dict(cubic_ref=s.low, value_cubic_ref=s.value_low))
        small = jnp.abs(s.high - s.low) <= stepsize_precision
        failed = ((s.trials + 1 >= max_steps) | (small & (safe_part["safe_stepsize"] > 0.0))) & ~done
        return new._replace(interval_found=s.interval_found, done=done, failed=failed,
                            **high, **low, **ref, **safe_part)

    def start(value, grad, direction) -> Search:
        slope0 = optax.tree.real(optax.tree.vdot(direction, grad))
        zero = jnp.zeros_like(value)
        inf = jnp.full_like(value, jnp.inf)
        false = jnp.zeros((), bool)
        return Search(trials=jnp.zeros((), jnp.int32), stepsize=zero, value=value, grad=grad, slope=slope0,
                      decrease_error=inf, curvature_error=inf, interval_found=false, done=false, failed=false,
                      low=zero, value_low=value, slope_low=slope0, high=zero, value_high=value, slope_high=slope0,
                      cubic_ref=zero, value_cubic_ref=value, safe_stepsize=zero, safe_value=value, safe_grad=grad,
                      value0=value, slope0=slope0)

    def absorb(s: Search, t, v, g, direction) -> Search:
        v = jnp.asarray(v, s.value0.dtype)
        slope = optax.tree.real(optax.tree.vdot(optax.tree.conj(g), direction))
        new = s._replace(trials=s.trials + 1, stepsize=t, value=v, grad=g, slope=slope,
                         decrease_error=decrease_error(t, v, slope, s.value0, s.slope0),
                         curvature_error=curvature_error(slope, s.slope0))
        new = jax.tree_util.tree_map(lambda a, b: jnp.where(s.interval_found, a, b),
                                     zoomed(s, new), widened(s, new))
        # out of trials: the safe step when there is one (or the last trial was not finite)
        keep = new.failed & ((new.safe_stepsize > 0.0) | jnp.isinf(new.decrease_error))
        return new._replace(**_where(keep, dict(stepsize=new.safe_stepsize, value=new.safe_value,
                                                grad=new.safe_grad),
                                     dict(stepsize=new.stepsize, value=new.value, grad=new.grad)))

    def stopped(s: Search) -> jax.Array:
        return s.done | s.failed

    def result(s: Search, state: optax.ScaleByZoomLinesearchState):
        new = optax.ScaleByZoomLinesearchState(
            learning_rate=s.stepsize, value=s.value, grad=s.grad,
            info=optax.ZoomLinesearchInfo(s.trials, s.decrease_error, s.curvature_error))
        return s.stepsize, optax.tree.cast_like(new, other_tree=state)

    def init(params) -> optax.ScaleByZoomLinesearchState:
        dtype = jnp.real(jnp.empty((), jax.tree_util.tree_leaves(params)[0].dtype)).dtype
        inf = jnp.asarray(jnp.inf, dtype)
        return optax.ScaleByZoomLinesearchState(
            learning_rate=jnp.asarray(1.0, dtype), value=inf, grad=optax.tree.zeros_like(params),
            info=optax.ZoomLinesearchInfo(jnp.asarray(0), jnp.asarray(jnp.inf), jnp.asarray(jnp.inf)))

    return Zoom(init, start, trial, absorb, stopped, result)


def _where(flag, a: dict, b: dict) -> dict:
    """``a`` where ``flag``, else ``b``, leaf by leaf (the same keys)."""
    return {k: jax.tree_util.tree_map(lambda x, y: jnp.where(flag, x, y), a[k], b[k]) for k in a}
