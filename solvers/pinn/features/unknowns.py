r"""Unknown equation coefficients (``unknowns:``): scalars trained with the network, read by the residuals.

Each unknown :math:`\theta` (a number the case's ``equation`` section sets, e.g. the plate's ``D`` or the
flow's Reynolds number) is a trained raw scalar :math:`z` mapped into its bounds :math:`(l, h)`:

.. math:: \theta = l\,(h/l)^{\sigma(z)} \quad (\texttt{scale: log}), \qquad
          \theta = l + (h - l)\,\sigma(z) \quad (\texttt{linear}), \qquad \sigma(z) = 1/(1 + e^{-z}),

so it never leaves them and a log-scale unknown moves by relative steps; :math:`z` starts where
:math:`\theta` is ``initial``. The raw values ride in the parameters,
``{"net": <the network's>, "unknowns": {name: z}}`` (:meth:`Unknowns.wrap`), so the optimisers, the
adaptive weights and the checkpoints treat them as any other parameter (a resumed run continues them
bit for bit). A case without unknowns keeps its parameters as they were.

The equation reads them through :meth:`Unknowns.equation`: the equation built again, inside the trace, from
its section with those numbers replaced by the traced values (:meth:`~sciml.equations.Equation.at`), so every
residual, scale and derived field that depends on them follows (the plate's deflection scale :math:`W = q_0/(D\ldots)`,
the flow's inverse Reynolds number). Built this way an equation must compute with those numbers arithmetically
(no ``float()`` of them); loading a case traces the problem once to find out (:func:`sciml.solvers.pinn.problem.check`).

**A field** (``field: {hidden: [16, 16]}``, a number the equation lets vary, its ``field_coefficients``: the
plate's ``D``): the raw value is a small MLP's output at each point, :math:`\theta(x) = m(z_0 + N(\hat x))` with the
same map :math:`m` into the same bounds (the number's units) and :math:`z_0` the raw value of ``initial``; the
MLP's last layer starts at zero, so the field starts at ``initial`` everywhere. Its parameters ride in
``params["unknowns"][name]``; the equation is the section's (the number's own value its scale, e.g. the plate's
deflection scale) with the coefficient field :math:`\theta(x) / \theta_{\text{section}}` in place of its own
(:meth:`~sciml.equations.Equation.with_coefficients`), so the section's description of the truth (the plate's
``damage``) is never read in training. The summary shows the field's values on the evaluation grid as the
equation reads them (:meth:`~sciml.equations.Equation.field_summary`: the plate's damaged zone), the field itself
among the derived fields (``D``: its error, map and plot beside the truth).
"""
from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from sciml.config import suggest
from sciml.config.schema import build, to_dict
from sciml.equations import EQUATIONS
from sciml.equations.sections import numbers, replace
from sciml.errors import Invalid
from sciml.nn import mlp

if TYPE_CHECKING:
    from ..config import PinnCase, UnknownConfig

PRIOR = "prior"  # the loss terms' group of the field unknowns' priors (prior.<name>)
SPARSITY_SMOOTHING = 1e-2  # |d| is smoothed within this of 0 (field.sparsity)

# scale -> (the value's map of sigmoid(z) in [0, 1], and its inverse), with the bounds (lo, hi)
SCALES = {
    "log": (lambda s, lo, hi: jnp.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * s),
            lambda v, lo, hi: (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))),
    "linear": (lambda s, lo, hi: lo + (hi - lo) * s,
               lambda v, lo, hi: (v - lo) / (hi - lo)),
}


def check(cfg: PinnCase, domain) -> None:
    """Each unknown names a number the equation section sets (:class:`Invalid` at ``unknowns.<name>``), and the
    equation can be posed with the unknowns anywhere in their bounds (:func:`_check_bounds`)."""
    known = numbers(cfg.equation)
    varying = EQUATIONS[cfg.equation.type][1].field_coefficients
    for name, u in cfg.unknowns.items():
        if name not in known:
            raise Invalid(f"unknowns.{name}", f"the equation ({cfg.equation.type}) sets no number {name!r}"
                                              f"{suggest(name, known)}; its numbers are {sorted(known)}")
        if u.field is not None and name not in varying:
            raise Invalid(f"unknowns.{name}.field", f"{name} cannot vary in space in the equation "
                                                    f"({cfg.equation.type}); the numbers that can are "
                                                    f"{sorted(varying)}: make {name} a scalar (no field)")
    _check_bounds(cfg, domain)


def _check_bounds(cfg: PinnCase, domain) -> None:
    """The section's own rules (its schema's bounds and ``check``, the equation's ``check_geometry``: the plate's
    patch on the plate) at every corner of the unknowns' bounds, so at every value training can reach for rules
    that hold on a box when they hold at its corners (as "inside an interval" does); :class:`Invalid` at
    ``unknowns.<name>.bounds``, ``<name>`` the unknown the broken rule names (else the first)."""
    names = list(cfg.unknowns)
    for corner in itertools.product(*(cfg.unknowns[n].bounds for n in names)):
        values = dict(zip(names, corner))
        try:
            section = build(type(cfg.equation), to_dict(replace(cfg.equation, values)))
            EQUATIONS[cfg.equation.type][1].check_geometry(section, domain)
        except Invalid as e:
            at = ", ".join(f"{n} = {v:g}" for n, v in values.items())
            raise Invalid(f"unknowns.{e.key if e.key in values else names[0]}.bounds",
                          f"the equation is refused at {at}, which the bounds allow: {e.key}: {e.message}") from None


def raw(u: UnknownConfig, value: float) -> float:
    """The raw scalar ``z`` whose mapped value is ``value`` (strictly inside ``u.bounds``)."""
    s = SCALES[u.scale][1](value, *u.bounds)
    return math.log(s) - math.log1p(-s)


def value(u: UnknownConfig, z):
    """The value of raw scalar ``z`` (traced or not)."""
    return SCALES[u.scale][0](jax.nn.sigmoid(z), *u.bounds)


def field_init(u: UnknownConfig, key, n_in: int, dtype) -> list[dict]:
    """A field unknown's MLP parameters, its last layer zero (the field starts at ``initial`` everywhere)."""
    assert u.field is not None
    layers = mlp.init(key, [n_in, *u.field.hidden, 1], dtype)
    return [*layers[:-1], jax.tree_util.tree_map(jnp.zeros_like, layers[-1])]


def _over(f, scale):
    """``f`` divided by ``scale`` (a field over the section's value: the coefficient field)."""
    return lambda xh: f(xh) / scale


class Unknowns:
    """The unknowns of a case: its parameters' wrapping, their values, the equation at them (scalars; fields,
    module notes)."""

    def __init__(self, cfg: PinnCase, domain):
        self.specs, self.section, self.domain = dict(cfg.unknowns), cfg.equation, domain
        self.cls = EQUATIONS[cfg.equation.type][1]
        self.scalars = {n: u for n, u in self.specs.items() if u.field is None}
        self.fields = {n: u for n, u in self.specs.items() if u.field is not None}
        # a field unknown's name -> the coefficient field the residuals read
        self.coefficient_names = {n: self.cls.field_coefficients[n] for n in self.fields}
        # a field unknown's name -> its sparsity prior's weight, for those with one
        self.sparsity = {n: u.field.sparsity for n, u in self.fields.items() if u.field and u.field.sparsity}

    def wrap(self, init, apply, dtype, n_in: int = 2):
        """``(init, apply)`` of the network to those of the parameters with the unknowns beside it (a field's
        MLP of ``n_in`` coordinates from its own key, folded from the network's)."""
        start = {n: raw(u, u.initial) for n, u in self.scalars.items()}

        def wrapped(key):
            fields = {n: field_init(u, jax.random.fold_in(key, 1 + i), n_in, dtype)
                      for i, (n, u) in enumerate(self.fields.items())}
            return {"net": init(key), "unknowns": {**{n: jnp.asarray(z, dtype) for n, z in start.items()}, **fields}}
        return wrapped, (lambda p, x: apply(p["net"], x))

    def field(self, params, name: str):
        """Field unknown ``name`` as a function: nondimensional points ``(N, D)`` -> values ``(N,)`` (its units)."""
        u = self.fields[name]
        assert u.field is not None
        z0, act = raw(u, u.initial), u.field.activation
        return lambda xh: value(u, z0 + mlp.apply(params["unknowns"][name], xh, act)[..., 0])

    def priors(self, params, xh) -> dict:
        """``{"prior.<name>": residual (N,)}`` of the field unknowns with ``sparsity`` at nondimensional points
        ``xh``: ``r = d (d² + ε²)^(-1/4)``, ``d = θ(x)/θ_initial - 1``, ``ε = 1e-2``, so that the term's mean square
        is the mean of ``d²/√(d² + ε²)``, ``|d|`` away from 0 (an L1 prior on the change) and smooth at 0."""
        out = {}
        for n in self.sparsity:
            d = self.field(params, n)(xh) / self.fields[n].initial - 1.0
            out[f"{PRIOR}.{n}"] = d * (d * d + SPARSITY_SMOOTHING ** 2) ** -0.25
        return out

    def weights(self) -> dict[str, float]:
        """``{"prior.<name>": sparsity}`` of the terms :meth:`priors` gives (a feature's terms: ``features.Terms``)."""
        return {f"{PRIOR}.{n}": w for n, w in self.sparsity.items()}

    def residuals(self, params, net, eq, batch: dict) -> dict:
        """The field unknowns' priors at the batch's interior points (:meth:`priors`)."""
        return self.priors(params, batch["interior"][..., :self.domain.dim])

    def values(self, params) -> dict:
        """``{name: value}`` of the scalar unknowns from the parameters (traced inside a trace, arrays outside)."""
        return {n: value(u, params["unknowns"][n]) for n, u in self.scalars.items()}

    def value_of(self, name: str, z):
        """The value of unknown ``name`` at raw scalar ``z``."""
        return value(self.specs[name], z)

    def equation(self, eq, params):
        """The equation ``eq`` (the case's, or at a curriculum stage's value) with the unknowns at their values in
        ``params`` (a field's as its coefficient field, over ``eq``'s value of the number)."""
        posed = eq.at(self.values(params))
        if not self.fields:
            return posed
        known = numbers(eq.section)
        return posed.with_coefficients({c: _over(self.field(params, n), known[n])
                                        for n, c in self.coefficient_names.items()})

    def truth(self) -> dict[str, float]:
        """The equation section's own values of the scalar unknowns (what ``sciml datagen`` made the data with)."""
        known = numbers(self.section)
        return {n: float(known[n]) for n in self.scalars}
