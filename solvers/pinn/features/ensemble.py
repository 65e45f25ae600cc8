r"""Ensembles (``ensemble:``): N networks trained in one ``jit``; the mean, the spread and 95 % intervals.

**Members.** The parameters of the N members are one pytree with a leading member axis, and their objective
is the mean of the members' losses, :math:`L = \frac1N \sum_m L_m(\theta_m)` (:func:`joint`: the loss vmapped
over the members). Its gradient in :math:`\theta_m` is member :math:`m`'s own over :math:`N`, so Adam, which
scales each coordinate by its own gradient history, trains each member as it would alone. L-BFGS runs one
line search and one curvature memory for all of them (its inner products sum over the members): a vmap of
optax's L-BFGS instead runs every member's line search to the longest one's length, and measured 3.4x slower
per step than the joint one on the plate (8 members, 2-core CPU). On a CPU the members cost about N times one.

**Starts** (``ensemble.start``). ``seeds``: member :math:`m` from the initial network of key :math:`m` (a
split of the case's) through every phase: a deep ensemble, whose spread is that of the optimisation. ``trained``:
the case's phases train one network, then a last stage (``ensemble``) of ``ensemble.steps`` L-BFGS steps
trains the N members from copies of it, each on its own resample of the data: the bootstrap around the
trained network, at the cost of one run plus N times those steps (:mod:`sciml.solvers.pinn.stages` adds the stage).

**Bootstrap** (``ensemble.bootstrap`` and a ``data:`` section). Member :math:`m` fits a resample with
replacement of the :math:`n` observations: counts :math:`c_{mi}` drawn from the multinomial of :math:`n` draws
over the points (:func:`counts`, from the case's seed), and its misfit residuals multiplied by
:math:`\sqrt{c_{mi}}`, so its misfit is the resample's. They ride in the batch as
``batch["data"]["root_count"]`` with the member axis (:func:`resampled`); every other part of the batch (the
collocation points) is shared.

**Summary** (:func:`stats`, :func:`interval`). Fields: the members' mean (``fields.h5``'s ``prediction``),
and their standard deviation (``std``; maps ``<field>_std.png``, and a profile with the band mean
:math:`\pm 1.96` std). Metrics: those of the mean (the ensemble's answer), and under ``ensemble.metrics`` each
one's mean and standard deviation over the members. An unknown reports the members' mean, with under
``ensemble.unknowns`` its standard deviation :math:`s` (ddof 1), every member's value and the 95 % interval
:math:`\bar\theta \pm t_{0.975,\,N-1}\, s`: the normal bootstrap interval, with Student's quantile for the
:math:`N - 1` degrees of freedom of :math:`s`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats as scipy_stats

from sciml.errors import Invalid

if TYPE_CHECKING:
    from ..config import PinnCase

LEVEL = 0.95  # the intervals' confidence
BAND = 1.96  # the plots' band: mean +- this many standard deviations
STREAM = 0x656E73  # the bootstrap counts' stream, beside the case's seed


def check(cfg: PinnCase, domain=None) -> None:
    """A start from the trained network without data to resample (what an ensemble does not combine with:
    :mod:`.features`)."""
    e = cfg.ensemble
    if e is None:
        return
    if e.start == "trained" and (cfg.data is None or not e.bootstrap):
        raise Invalid("ensemble.start", "members started from the trained network differ only by their resample "
                                        "of the observations: `trained` needs a data section and bootstrap: true "
                                        "(or use start: seeds)")


def keys(key, n: int):
    """The members' ``n`` keys from ``key``."""
    return jax.random.split(key, n)


def spread(params, n: int, single) -> Any:
    """``params`` with the member axis: as they are when they have it, else ``n`` copies (``single``: the
    shapes of one member's parameters)."""
    one = jax.tree_util.tree_leaves(single)[0].shape
    if np.shape(jax.tree_util.tree_leaves(params)[0]) != one:
        return params
    return jax.tree_util.tree_map(lambda a: np.repeat(np.asarray(a)[None], n, axis=0), params)


def member(tree, m: int):
    """Member ``m``'s slice of a tree with the member axis."""
    return jax.tree_util.tree_map(lambda a: a[m], tree)


def predictors(predict: Callable, params, members: int, values: dict | None = None) -> list[Callable]:
    """Each member's ``predict(physical points, of=None)`` from the problem's ``predict`` and the stacked
    ``params`` (``values``: a family's parameters)."""
    def one(p) -> Callable:
        return lambda pts, of=None: predict(p, pts, of=of, values=values)

    return [one(member(params, m)) for m in range(members)]


def counts(seed: int, members: int, n: int) -> np.ndarray:
    """``(members, n)`` bootstrap counts: each row ``n`` draws with replacement over the ``n`` points."""
    rng = np.random.default_rng([seed, STREAM])
    return rng.multinomial(n, np.full(n, 1.0 / n), size=members).astype(float)


def resampled(batch: dict, root_count) -> dict:
    """``batch`` whose observations are weighed per member by ``root_count (members, n)``."""
    return {**batch, "data": {**batch["data"], "root_count": root_count}}


def bootstrapped(cfg: PinnCase, members: int, batch: dict) -> dict:
    """``batch`` with each of ``members``' resample of its observations (:func:`counts`), where the case's
    ensemble bootstraps and the batch has data; else ``batch``."""
    e = cfg.ensemble
    if e is None or not e.bootstrap or "data" not in batch:
        return batch
    return resampled(batch, np.sqrt(counts(cfg.seed, members, len(batch["data"]["x"]))))


def _axes(batch: dict) -> dict:
    """vmap's ``in_axes`` of a batch: the member axis only on the observations' weights."""
    axes: dict[str, Any] = {k: None for k in batch}
    if "root_count" in batch.get("data", {}):
        axes["data"] = {k: 0 if k == "root_count" else None for k in batch["data"]}
    return axes


def member_batch(batch: dict, m: int) -> dict:
    """Member ``m``'s batch (its own weights of the observations)."""
    return resampled(batch, batch["data"]["root_count"][m]) if "root_count" in batch.get("data", {}) else batch


def joint(fn: Callable) -> Callable:
    """``fn(params, batch, key, *rest)`` of one member as the same of the members (module notes): the
    members' parameters and the batch's member leaves vmapped, the outputs averaged over the members."""

    def of_members(params, batch, key, *rest):
        each = jax.vmap(lambda p, b: fn(p, b, key, *rest), in_axes=(0, _axes(batch)))(params, batch)
        return jax.tree_util.tree_map(lambda v: jnp.mean(v, axis=0), each)

    return of_members


def over(members: int, fn: Callable) -> Callable:
    """``fn`` of one network as it is, or of ``members > 1`` networks jointly (:func:`joint`)."""
    return joint(fn) if members > 1 else fn


def stats(values) -> dict:
    """``{"mean", "std"}`` over the members (``std`` with ddof 1)."""
    v = np.asarray(values, float)
    return {"mean": float(v.mean()), "std": float(v.std(ddof=1))}


def interval(values) -> tuple[float, float]:
    """The 95 % interval of a coefficient from its members' values (module notes)."""
    s = stats(values)
    half = float(scipy_stats.t.ppf(0.5 + LEVEL / 2, len(values) - 1)) * s["std"]
    return s["mean"] - half, s["mean"] + half


def mean_fields(each: list[dict]) -> tuple[dict, dict]:
    """The members' mean and standard deviation (ddof 1) of each field, from their ``{field: values}``."""
    mean = {k: np.mean([e[k] for e in each], axis=0) for k in each[0]}
    std = {k: np.std([e[k] for e in each], axis=0, ddof=1) for k in each[0]}
    return mean, std


def unknowns(values: list[dict], truth: dict) -> dict:
    """``{name: {mean, std, interval_95, members[, covers]}}`` from each member's ``{name: value}``; ``covers``:
    whether the interval holds the truth (the equation section's value)."""
    out = {}
    for name in values[0]:
        v = [m[name] for m in values]
        lo, hi = interval(v)
        out[name] = {**stats(v), "interval_95": [lo, hi], "members": v}
        if name in truth:
            out[name]["covers"] = bool(lo <= truth[name] <= hi)
    return out
