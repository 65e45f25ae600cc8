r"""Semilinear elliptic PDEs in any dimension with exact solutions (Hu, Shukla, Karniadakis & Kawaguchi 2023).

On a domain in :math:`\mathbb{R}^d` (the unit ball, :mod:`sciml.solvers.pinn.ball`) the field :math:`u` solves

.. math:: \Delta u + N(u) = g, \qquad u = u^* \text{ on the boundary},

with :math:`N` from :data:`FORMS` (``poisson``: 0, ``allen_cahn``: :math:`u - u^3`, ``sine_gordon``: :math:`\sin u`)
and :math:`g = \Delta u^* + N(u^*)` for the exact solution :math:`u^* = (1 - |x|^2)\, s(x)` of :data:`SOLUTIONS`,
:math:`c_i \sim N(0, 1)` drawn from ``equation.seed``:

- ``two_body``: :math:`s = \sum_{i=1}^{d-1} c_i \sin(x_i + \cos x_{i+1} + x_{i+1} \cos x_i)`;
- ``three_body``: :math:`s = \sum_{i=1}^{d-2} c_i \exp(x_i x_{i+1} x_{i+2})`.

With :math:`\varphi = 1 - |x|^2` (:math:`\Delta\varphi = -2d`, :math:`\nabla\varphi = -2x`) the source is
:math:`\Delta u^* = -2d\, s - 4\, x\cdot\nabla s + \varphi\, \Delta s`, each term a sum over the chain's links, so
:math:`g` costs :math:`O(d)` per point (no derivative of :math:`u^*` is taken numerically). The network gives
:math:`\hat u = u / U` with :math:`U = |c|_2` (the size of :math:`s`, which grows like :math:`\sqrt d`), so
that its output stays of unit size in any dimension; the interior residual is divided by :math:`d\,U` (the
size of :math:`\Delta u`) and the boundary one, :math:`\hat u - u^*/U`, by :math:`U`. The reported field is
:math:`u = U \hat u`. Coordinates are the
domain's; the map to the network's inputs is the identity.

On the unit sphere :math:`u^* = 0`: points sampled there have :math:`|x|^2 = 1` only to rounding, so
:math:`\varphi` within :data:`ROUNDING` ulps of 0 is taken as 0. The Dirichlet data is then exactly zero, and
``model.exact: {parts: [sphere], ...}`` can impose it by a factor vanishing on the sphere (the hard
constraint of the papers, :math:`u = (1 - |x|^2)\,\mathrm{NN}(x)`, up to the factor's form).

Reference: Hu, Shukla, Karniadakis & Kawaguchi, *Tackling the curse of dimensionality with physics-informed
neural networks*, Neural Networks 176 (2024) 106369, arXiv:2307.12306 (§ 4); the same problems in Shi, Hu,
Lin & Kawaguchi, *Stochastic Taylor derivative estimator*, NeurIPS 2024, arXiv:2412.00088.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from sciml.config import spec
from sciml.errors import Invalid

from .base import Equation
from .domain import Domain


def _two_body(x, c):
    """``(s, x·∇s, Δs)`` of ``s = Σ c_i sin(ψ_i)``, ``ψ_i = a + cos b + b cos a`` (``a = x_i``, ``b = x_{i+1}``)."""
    a, b = x[..., :-1], x[..., 1:]
    psi = a + jnp.cos(b) + b * jnp.cos(a)
    pa, pb = 1.0 - b * jnp.sin(a), jnp.cos(a) - jnp.sin(b)  # ∂ψ/∂a, ∂ψ/∂b
    paa, pbb = -b * jnp.cos(a), -jnp.cos(b)
    sin, cos = jnp.sin(psi), jnp.cos(psi)
    return ((c * sin).sum(-1), (c * cos * (a * pa + b * pb)).sum(-1),
            (c * (cos * (paa + pbb) - sin * (pa * pa + pb * pb))).sum(-1))


def _three_body(x, c):
    """``(s, x·∇s, Δs)`` of ``s = Σ c_i exp(p_i)``, ``p_i = a b e`` (three consecutive coordinates)."""
    a, b, e = x[..., :-2], x[..., 1:-1], x[..., 2:]
    p = a * b * e
    ep = c * jnp.exp(p)
    return ep.sum(-1), (3.0 * p * ep).sum(-1), (ep * ((b * e) ** 2 + (a * e) ** 2 + (a * b) ** 2)).sum(-1)


# name -> (links of the chain in d dimensions: d - offset, (x, c) -> (s, x·∇s, Δs))
SOLUTIONS = {"two_body": (1, _two_body), "three_body": (2, _three_body)}

ROUNDING = 16  # |1 - |x|²| within this many ulps of 0 is 0: u* is exactly 0 on the unit sphere


REFERENCE_CHUNK = 10**7  # coordinates per chunk of the reference's evaluation


def exact(x, c, solution: str) -> tuple:
    """``(u*, Δu*)`` of ``solution`` with coefficients ``c`` at points ``x (..., d)`` (module notes)."""
    s, x_grad_s, lap_s = SOLUTIONS[solution][1](x, jnp.asarray(c, x.dtype))
    phi = 1.0 - jnp.sum(x * x, axis=-1)
    phi = jnp.where(jnp.abs(phi) <= ROUNDING * jnp.finfo(x.dtype).eps, 0.0, phi)  # on the unit sphere: 0
    return phi * s, -2.0 * x.shape[-1] * s - 4.0 * x_grad_s + phi * lap_s


def coefficients(solution: str, dim: int, seed: int) -> np.ndarray:
    """The ``c_i ~ N(0, 1)`` of ``solution`` in ``dim`` dimensions, from ``seed``."""
    return np.random.default_rng(seed).standard_normal(dim - SOLUTIONS[solution][0])


# name -> N(u)
FORMS = {
    "poisson": lambda u: jnp.zeros_like(u),
    "allen_cahn": lambda u: u - u**3,
    "sine_gordon": jnp.sin,
}


@dataclass
class SemilinearConfig:
    """Case-file section ``equation`` for ``type: semilinear`` (module notes)."""

    type: Literal["semilinear"]
    form: Literal["poisson", "allen_cahn", "sine_gordon"] = spec("poisson", help="N(u): 0, u - u³ or sin u")
    solution: Literal["two_body", "three_body"] = spec("two_body", help="the exact solution u*")
    seed: int = spec(0, ge=0, help="seed of the solution's coefficients c_i ~ N(0, 1)")


class Semilinear(Equation):
    """``Δu + N(u) = g`` with the exact solution ``u*`` as Dirichlet data on every part (module notes)."""

    fields = ("u",)

    def __init__(self, config: SemilinearConfig, domain: Domain):
        self.config, self.domain = config, domain
        self.c = coefficients(config.solution, len(domain.coords), config.seed)
        self.scale = float(np.linalg.norm(self.c))  # U: the network gives u / U
        self._n = FORMS[config.form]

    @property
    def coords(self) -> tuple[str, ...]:
        return tuple(self.domain.coords)

    def to_nondim(self, x):
        return x

    def to_physical(self, xh):
        return xh

    def exact(self, x) -> tuple:
        """``(u*, Δu*)`` at points ``x (N, d)`` (module notes)."""
        return exact(x, self.c, self.config.solution)

    def interior(self, d):
        u_star, lap_star = self.exact(d.points)
        U = self.scale
        u = U * d["u"]
        return {"pde": (U * d.lap("u") + self._n(u) - lap_star - self._n(u_star)) / (len(self.coords) * U)}

    def boundary(self, part, d, normal):
        return {"u": d["u"] - self.exact(d.points)[0] / self.scale}

    def derived(self, d):
        return {"u": self.scale * d["u"]}

    def reference(self, points):
        """``u*`` in float64 whatever the case's dtype: ``1 - |x|²`` is about ``2/d`` at points uniform in the
        ball, and a float32 sum of ``d`` squares leaves it 1.4 % wrong at ``d = 10⁵`` (measured)."""
        points = np.asarray(points, np.float64)
        rows = max(1, REFERENCE_CHUNK // max(points.shape[-1], 1))  # the temporaries stay ~0.1 GB in any d
        with jax.enable_x64(True):
            parts = [np.asarray(self.exact(jnp.asarray(points[i:i + rows]))[0]) for i in range(0, len(points), rows)]
        return {"u": np.concatenate(parts) if parts else np.zeros(0)}

    @classmethod
    def check_geometry(cls, config, domain: Domain) -> None:
        offset = SOLUTIONS[config.solution][0]
        if len(domain.coords) <= offset:
            raise Invalid("solution", f"{config.solution} needs at least {offset + 1} coordinates, the domain "
                                      f"has {len(domain.coords)}")
