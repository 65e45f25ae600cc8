"""The PINN's optional features, and the pairs of them that do not combine: one table.

:data:`USED` says of each feature whether a case uses it (by the case-file key that turns it on);
:data:`APART` lists the pairs that do not combine, each with the key its error names and why. :func:`check`
raises the first pair a case holds (:class:`~sciml.errors.Invalid`, one line), when the case is loaded
(:func:`.problem.check`). A new feature adds its row to ``USED`` and its pairs to ``APART``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sciml.errors import Invalid

if TYPE_CHECKING:
    from .config import PinnCase

FIELD_UNKNOWN = "a field unknown (unknowns.<name>.field)"
DENSE_SEEDS = "training.lbfgs.method: bfgs from seeds (its matrix is one network's; start: trained takes it)"

USED: dict[str, Callable[[PinnCase], bool]] = {
    "ensemble": lambda c: c.ensemble is not None,
    "parameters": lambda c: bool(c.parameters),
    "unknowns": lambda c: bool(c.unknowns),
    FIELD_UNKNOWN: lambda c: any(u.field is not None for u in c.unknowns.values()),
    "data": lambda c: c.data is not None,
    "training.windows": lambda c: c.training.windows > 1,
    "training.curriculum": lambda c: c.training.curriculum is not None,
    "sampling.adaptive": lambda c: c.sampling.adaptive is not None,
    "loss.causal": lambda c: c.loss.causal is not None,
    "autodiff.mode": lambda c: c.autodiff.mode == "stochastic",
    DENSE_SEEDS: lambda c: c.ensemble is not None and c.ensemble.start == "seeds"
    and c.training.lbfgs.method == "bfgs",
}

_ENSEMBLE = "an ensemble does not combine with {other} (train one network with it, or the ensemble without it)"
_FAMILY = "a parametric case (parameters) does not combine with this yet"

# (feature, other feature, the key the error names, why: {other} is the other's name), checked in this order
APART: tuple[tuple[str, str, str, str], ...] = (
    ("training.windows", "training.curriculum", "training.windows",
     "time windows and a curriculum do not combine (train the steady flow at the curriculum's last value first, "
     "then march in time)"),
    *(("ensemble", other, "ensemble", _ENSEMBLE) for other in
      ("training.curriculum", "training.windows", "sampling.adaptive", FIELD_UNKNOWN, DENSE_SEEDS, "loss.causal")),
    *(("parameters", other, other, _FAMILY) for other in
      ("unknowns", "data", "training.windows", "training.curriculum", "sampling.adaptive", "loss.causal",
       "autodiff.mode")),
)


def check(cfg: PinnCase) -> None:
    """:class:`Invalid` for the first pair of :data:`APART` that case ``cfg`` uses both of."""
    for feature, other, key, why in APART:
        if USED[feature](cfg) and USED[other](cfg):
            raise Invalid(key, why.format(other=other))
