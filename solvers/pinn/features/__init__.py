"""The PINN's optional features, each a module of this package, and what they share: the tables and the protocol.

- :data:`USED` says of each feature whether a case uses it (by the case-file key that turns it on);
  :data:`APART` lists the pairs that do not combine, each with the key its error names and why; :func:`check`
  raises the first pair a case holds (:class:`~sciml.errors.Invalid`, one line), when the case is loaded
  (:func:`sciml.solvers.pinn.problem.check`), then runs each feature's own check (:data:`CHECKS`).
- A feature that adds loss terms beside the equation's is a :class:`Terms` (the observations' misfits,
  :class:`.observations.Misfit`; the field unknowns' priors, :class:`.unknowns.Unknowns`); the problem sums them
  in with the equation's residuals, weighed by default as each says.
- What a feature adds to a run's metrics rows and summary is a ``Report`` (:mod:`sciml.solvers.pinn.output.report`).

The features: :mod:`.parameters` (a family), :mod:`.unknowns` and :mod:`.identifiability` (inverse problems),
:mod:`.observations` (data), :mod:`.ensemble`, :mod:`.curriculum`, :mod:`.windows` (time windows),
:mod:`.refinement` (adaptive points), :mod:`.causal` and :mod:`.balancing` (the loss's weights).
A new feature adds its row to ``USED``, its pairs to ``APART``, its check to ``CHECKS``.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from sciml.errors import Invalid

from . import curriculum, ensemble, observations, parameters, unknowns

if TYPE_CHECKING:
    from ..config import PinnCase

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


def apart(cfg: PinnCase, domain=None) -> None:
    """:class:`Invalid` for the first pair of :data:`APART` that case ``cfg`` uses both of."""
    for feature, other, key, why in APART:
        if USED[feature](cfg) and USED[other](cfg):
            raise Invalid(key, why.format(other=other))


# each feature's check against the case and its domain (a no-op where the case does not use it), in this order
CHECKS: tuple[Callable[[PinnCase, object], None], ...] = (
    parameters.check,  # first: a number that is both a parameter and an unknown says so
    apart,
    curriculum.check,
    ensemble.check,
    unknowns.check,
    observations.check,
)


def check(cfg: PinnCase, domain) -> None:
    """Every check of :data:`CHECKS` on case ``cfg`` and its ``domain``: the first broken rule raises."""
    for each in CHECKS:
        each(cfg, domain)


class Terms(Protocol):
    """A feature's loss terms beside the equation's residuals."""

    def weights(self) -> dict[str, float]:
        """The default fixed weight of its terms (by term or by group; ``loss.weights`` overrides)."""

    def residuals(self, params, net: Callable, eq, batch: dict) -> dict:
        """``{term: per-point residual}`` for parameters ``params``, the network ``net`` (nondimensional inputs
        to the differentiated fields), the equation ``eq`` the residuals read, and the ``batch``."""
