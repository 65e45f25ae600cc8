r"""Unknown equation coefficients (``unknowns:``): scalars trained with the network, read by the residuals.

Each unknown :math:`\theta` (a number the case's ``equation`` section sets, e.g. the plate's ``D`` or the
flow's ``Re``) is a trained raw scalar :math:`z` mapped into its bounds :math:`(l, h)`:

.. math:: \theta = l\,(h/l)^{\sigma(z)} \quad (\texttt{scale: log}), \qquad
          \theta = l + (h - l)\,\sigma(z) \quad (\texttt{linear}), \qquad \sigma(z) = 1/(1 + e^{-z}),

so it never leaves them and a log-scale unknown moves by relative steps; :math:`z` starts where
:math:`\theta` is ``initial``. The raw values ride in the parameters,
``{"net": <the network's>, "unknowns": {name: z}}`` (:meth:`Unknowns.wrap`), so the optimisers, the
adaptive weights and the checkpoints treat them as any other parameter (a resumed run continues them
bit for bit). A case without unknowns keeps its parameters as they were.

The equation reads them through :meth:`Unknowns.equation`: the equation built again, inside the trace, from
its section with those numbers replaced by the traced values (``dataclasses.replace``), so every residual,
scale and derived field that depends on them follows (the plate's deflection scale :math:`W = q_0/(D\ldots)`,
the flow's :math:`1/\hat{Re}`). Built this way an equation must compute with those numbers arithmetically
(no ``float()`` of them); loading a case traces the problem once to find out (:func:`sciml.solvers.pinn.problem.check`).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp

from sciml.config import suggest
from sciml.config.schema import build, to_dict
from sciml.equations import EQUATIONS
from sciml.errors import Invalid

if TYPE_CHECKING:
    from .config import PinnCase, UnknownConfig

# scale -> (the value's map of sigmoid(z) in [0, 1], and its inverse), with the bounds (lo, hi)
SCALES = {
    "log": (lambda s, lo, hi: jnp.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * s),
            lambda v, lo, hi: (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))),
    "linear": (lambda s, lo, hi: lo + (hi - lo) * s,
               lambda v, lo, hi: (v - lo) / (hi - lo)),
}


def coefficients(section, prefix: str = "") -> dict[str, float]:
    """The numbers an ``equation`` section sets (the names an unknown may take), those of its subsections by
    dotted name (the plate's ``patch.x``)."""
    out: dict[str, float] = {}
    for f in dataclasses.fields(section):
        v = getattr(section, f.name)
        if dataclasses.is_dataclass(v):
            out.update(coefficients(v, f"{prefix}{f.name}."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[prefix + f.name] = v
    return out


def replace(section, values: dict):
    """``section`` with the numbers ``{dotted name: value}`` replaced (values may be traced)."""
    inner: dict[str, dict] = {}
    for name, v in values.items():
        head, _, rest = name.partition(".")
        inner.setdefault(head, {}).update({rest: v} if rest else {"": v})
    return dataclasses.replace(section, **{k: v[""] if "" in v else replace(getattr(section, k), v)
                                           for k, v in inner.items()})


def check(cfg: PinnCase, domain) -> None:
    """Each unknown names a number the equation section sets (:class:`Invalid` at ``unknowns.<name>``), and the
    equation can be posed with the unknowns anywhere in their bounds (:func:`_check_bounds`)."""
    known = coefficients(cfg.equation)
    for name in cfg.unknowns:
        if name not in known:
            raise Invalid(f"unknowns.{name}", f"the equation ({cfg.equation.type}) sets no number {name!r}"
                                              f"{suggest(name, known)}; its numbers are {sorted(known)}")
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


class Unknowns:
    """The unknowns of a case: its parameters' wrapping, their values, the equation at them."""

    def __init__(self, cfg: PinnCase, domain):
        self.specs, self.section, self.domain = dict(cfg.unknowns), cfg.equation, domain
        self.cls = EQUATIONS[cfg.equation.type][1]

    def wrap(self, init, apply, dtype):
        """``(init, apply)`` of the network to those of the parameters with the unknowns beside it."""
        start = {n: raw(u, u.initial) for n, u in self.specs.items()}
        return ((lambda key: {"net": init(key), "unknowns": {n: jnp.asarray(z, dtype) for n, z in start.items()}}),
                (lambda p, x: apply(p["net"], x)))

    def values(self, params) -> dict:
        """``{name: value}`` from the parameters (traced inside a trace, arrays outside)."""
        return {n: value(u, params["unknowns"][n]) for n, u in self.specs.items()}

    def value_of(self, name: str, z):
        """The value of unknown ``name`` at raw scalar ``z``."""
        return value(self.specs[name], z)

    def equation(self, params):
        """The case's equation with the unknowns at their values in ``params``."""
        section: Any = self.section  # a dataclass (the equation's config)
        return self.cls(replace(section, self.values(params)), self.domain)

    def truth(self) -> dict[str, float]:
        """The equation section's own values (what ``sciml datagen`` made the data with)."""
        known = coefficients(self.section)
        return {n: float(known[n]) for n in self.specs}
