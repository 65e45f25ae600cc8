"""How a PINN problem differentiates its network: one record of what the autodiff engine is asked.

The network's outputs and then the coefficient fields (:meth:`~sciml.equations.Equation.coefficients`) are the
``fields`` differentiated together in one planned call of the engine (:func:`sciml.equations.fields.evaluator`);
a family's parameters are ``extra`` inputs, not coordinates. What a function of the fields reads is collected
once (:meth:`Derivatives.requests`); :meth:`Derivatives.at` evaluates those requests at points.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sciml.equations.fields import Fields, collect, evaluator

from .config import AutodiffConfig


@dataclass(frozen=True)
class Derivatives:
    """The differentiated ``fields`` (network outputs, then coefficient fields) in the ``coords``, with the
    equation's ``aliases``, ``extra`` non-coordinate inputs and the case's ``autodiff`` section."""

    fields: tuple[str, ...]
    coords: tuple[str, ...]
    aliases: Mapping | None
    extra: int
    autodiff: AutodiffConfig

    def requests(self, fn: Callable) -> tuple:
        """The partials ``fn(fields)`` reads (:func:`~sciml.equations.fields.collect`)."""
        return collect(fn, self.fields, self.coords, aliases=self.aliases)

    def at(self, net: Callable, requests, x, key=None) -> Fields:
        """``requests`` of ``net`` at the inputs ``x``; ``key`` feeds the stochastic mode, and without one
        (predictions, observations) the derivatives are exact (Taylor mode in its place)."""
        options: dict = {"mode": self.exact_mode if key is None else self.autodiff.mode}
        if key is not None and self.autodiff.mode == "stochastic":
            options.update(key=key, samples=self.autodiff.samples, distribution=self.autodiff.distribution)
        return evaluator(net, requests, self.fields, self.coords, self.aliases, extra=self.extra, **options)(x)

    @property
    def exact_mode(self) -> str:
        """The engine's mode where derivatives must be exact: the case's, Taylor in place of stochastic."""
        return "taylor" if self.autodiff.mode == "stochastic" else self.autodiff.mode
