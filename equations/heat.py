r"""Steady heat conduction: the temperature :math:`u` (K) in a solid of conductivity :math:`k` (W/(m K)) with a
volumetric source :math:`f` (W/m³),

.. math:: -k\,\Delta u = f,

in any dimension (a 3-D part read from an STL file: ``cases/heat_bracket.yaml``).

**Conditions** (``conditions``, every boundary part one): ``{u: g}`` holds the part at the temperature :math:`g`,
``{flux: q}`` lets the heat flux :math:`q = k\,\partial_n u` (W/m²) *into* the part through it (``{flux: 0}``:
insulated); :math:`g`, :math:`q` and :math:`f` are numbers or expressions of the coordinates (:mod:`sciml.expr`).
At least one part is held at a temperature, else the steady temperature is free up to a constant.

**Scales.** The network sees :math:`\hat x = (x - c)/L` (:math:`c` the centre of the domain's bounding box,
:math:`L` half its longest side) and gives :math:`\hat u = (u - T_0)/\Delta T`, :math:`T_0` the middle of the
numbers the conditions hold the parts at and :math:`\Delta T` half their range, or 1 where they are one number
(expressions do not count; the conductivity does not enter, so that it may be an unknown). The residuals are

.. math:: \hat\Delta\hat u + \frac{f L^2}{k\,\Delta T}, \qquad \hat u - \frac{g - T_0}{\Delta T}, \qquad
          \hat n\cdot\hat\nabla\hat u - \frac{q L}{k\,\Delta T}.

There is no series for a part of any shape: the reference is the finite-element solution on the same part
(:mod:`sciml.solvers.classical.fem.heat`, quadratic tetrahedra), which a PINN run asks for by the table of
``solvers/pinn/output/references.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import jax.numpy as jnp
import numpy as np

from sciml import expr
from sciml.config import spec, suggest
from sciml.errors import Invalid

from .base import Equation
from .domain import Domain

QUANTITIES = ("u", "flux")  # a condition holds the temperature or lets a heat flux in


@dataclass
class HeatConfig:
    """Case-file section ``equation`` for ``type: heat`` (module notes)."""

    type: Literal["heat"]
    k: float = spec(1.0, gt=0.0, help="thermal conductivity (W/(m K))")
    source: str | float = spec(0.0, help="volumetric heat source f (W/m^3): a number or an expression of the "
                                         "coordinates")
    conditions: dict[str, dict[str, str | float]] = spec(
        factory=dict, help="by boundary part: {u: 300} a temperature (K), or {flux: 0} the heat flux into the part "
                           "(W/m^2; 0: insulated); numbers or expressions of the coordinates")


def _number(value) -> float | None:
    """A condition's value as a number, or None for an expression."""
    return None if isinstance(value, str) else float(value)


def scales(config: HeatConfig) -> tuple[float, float]:
    """``(T0, ΔT)`` of the module notes."""
    held = [float(v) for c in config.conditions.values() for q, v in c.items() if q == "u" and _number(v) is not None]
    if not held:
        return 0.0, 1.0
    return (max(held) + min(held)) / 2, (max(held) - min(held)) / 2 or 1.0


def check_section(config: HeatConfig, domain: Domain) -> None:
    """Every part one condition of :data:`QUANTITIES` with a valid value, one part held at a temperature, a
    domain without time; :class:`Invalid` naming the key."""
    if domain.time is not None:
        raise Invalid("type", "heat is steady: pose it on a domain without time")
    parts = list(domain.parts)
    for part, cond in config.conditions.items():
        if part not in parts:
            raise Invalid(f"conditions.{part}", f"unknown boundary part{suggest(part, parts)}; parts are {parts}")
        if len(cond) != 1 or next(iter(cond)) not in QUANTITIES:
            raise Invalid(f"conditions.{part}", f"give one of {{u: temperature}} or {{flux: heat flux in}}, got "
                                                f"{cond}")
        for q, value in cond.items():
            _parse(value, domain.coords, f"conditions.{part}.{q}")
    _parse(config.source, domain.coords, "source")
    missing = [p for p in parts if p not in config.conditions]
    if missing:
        raise Invalid("conditions", f"no condition for part(s) {missing} (insulated: {{flux: 0}})")
    if not any("u" in c for c in config.conditions.values()):
        raise Invalid("conditions", "no part is held at a temperature {u: ...}: the steady temperature would be "
                                    "free up to a constant")


def _parse(value, coords, key: str) -> expr.Expression:
    try:
        return expr.parse(value, tuple(coords))
    except ValueError as e:
        raise Invalid(key, str(e)) from None


class Heat(Equation):
    """``-k Δu = f`` with temperatures and heat fluxes on the parts (module notes)."""

    fields = ("u",)

    @classmethod
    def check_geometry(cls, config: HeatConfig, domain: Domain) -> None:
        """Cross-checks against the domain (:func:`check_section`)."""
        check_section(config, domain)

    def __init__(self, config: HeatConfig, domain: Domain):
        self.config, self.domain = config, domain
        bounds = np.array(domain.bounds, float)
        self.center = (bounds[:, 0] + bounds[:, 1]) / 2
        self.L = float(np.max(bounds[:, 1] - bounds[:, 0]) / 2)
        self.k = config.k
        self.T0, self.dT = scales(config)
        self._source = _parse(config.source, self.coords, "source")
        self._conditions = {part: (q, _parse(v, self.coords, f"conditions.{part}.{q}"))
                            for part, cond in config.conditions.items() for q, v in cond.items()}

    @property
    def coords(self) -> tuple[str, ...]:
        return tuple(self.domain.coords)

    def to_nondim(self, x):
        return (x - self.center) / self.L

    def to_physical(self, xh):
        return self.center + self.L * xh

    def _at(self, e: expr.Expression, xh):
        """An expression's value at nondimensional points ``(N, D)`` (jnp)."""
        x = self.to_physical(xh)
        return e(jnp, **{c: x[..., i] for i, c in enumerate(self.coords)}) + 0.0 * x[..., 0]

    def interior(self, d):
        return {"pde": d.lap("u") + self._at(self._source, d.points) * self.L**2 / (self.k * self.dT)}

    def boundary(self, part, d, normal):
        q, value = self._conditions[part]
        if q == "u":
            return {"u": d["u"] - (self._at(value, d.points) - self.T0) / self.dT}
        dn = sum(normal[..., i] * d[f"u_{c}"] for i, c in enumerate(self.coords))
        return {"flux": dn - self._at(value, d.points) * self.L / (self.k * self.dT)}

    def derived(self, d):
        return {"u": self.T0 + self.dT * d["u"]}

    def classical(self) -> tuple[dict[str, tuple[str, object]], object]:
        """What the finite-element reference solves: ``(conditions, source)``, each part's ``("temperature" |
        "flux", g(x, y, z))`` and ``f(x, y, z)`` as numpy functions of the coordinates
        (:mod:`sciml.solvers.classical.fem.heat`)."""
        def numpy(e):
            return lambda *x: np.broadcast_to(np.asarray(e(np, **dict(zip(self.coords, x))), float), np.shape(x[0]))
        kinds = {"u": "temperature", "flux": "flux"}
        return {part: (kinds[q], numpy(e)) for part, (q, e) in self._conditions.items()}, numpy(self._source)
