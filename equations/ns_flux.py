r"""The mass flux held through cross-sections (``equation.flux``): the integral form of continuity.

Continuity as a pointwise residual leaves a small mean divergence that adds up along a channel: a network whose
continuity residual is everywhere small may still lose several per cent of the flow between the inlet and the
outlet (the DFG cylinder's PINN lost 11 % by the outlet over 0.4 time units). For a channel whose walls let nothing
through, the flux through every section :math:`x = \text{const}` is the inflow's,

.. math:: Q(x, t) = \int_{y_0}^{y_1} u(x, y, t)\, dy = Q_{in},

and ``flux: {value: Q_in}`` adds the loss term ``flux.u``: the relative error :math:`Q(x_j, t_k)/Q_{in} - 1` of
each of ``sections`` sections evenly inside the domain's :math:`x` range, at ``times`` times evenly over a
space-time domain's interval (NVIDIA Modulus's "integral continuity" planes). Each section's integral is
Gauss–Legendre with ``points`` nodes over the channel's height; a section that crosses a hole is left out (the
rule would not see the hole's edge). 2D domains.
"""
from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from sciml.config import spec
from sciml.errors import Invalid


@dataclass
class FluxConfig:
    """The flux through sections ``x = const`` held at the inflow's (module notes)."""

    value: float = spec(help="the flux every section carries, e.g. U_mean times the channel's height")
    sections: int = spec(12, ge=1, help="sections evenly inside the x range (those crossing a hole left out)")
    points: int = spec(24, ge=2, help="Gauss-Legendre nodes on each section")
    times: int = spec(17, ge=1, help="times evenly over a space-time domain's interval")


def section_xs(config: FluxConfig, domain) -> np.ndarray:
    """The sections' ``x``: ``sections`` evenly inside the x range, less those that cross a hole."""
    (x0, x1), (y0, y1) = np.asarray(domain.bounds, float)[:2]
    xs = np.linspace(x0, x1, config.sections + 2)[1:-1]
    y = np.linspace(y0, y1, 2001)[1:-1]
    clear = [bool(np.all(domain.space.contains(np.stack([np.full_like(y, x), y], -1), 0.0))) for x in xs]
    return xs[np.asarray(clear, bool)]


def check(config: FluxConfig | None, domain) -> None:
    """Cross-checks against the domain; :class:`Invalid` keys are relative to ``equation``."""
    if config is None:
        return
    if len(domain.space.bounds) != 2:
        raise Invalid("flux", "the flux through sections is computed for 2D channels")
    if config.value == 0:
        raise Invalid("flux.value", "the flux is held relative to its value: give a nonzero one")
    if not len(section_xs(config, domain)):
        raise Invalid("flux.sections", f"all {config.sections} sections cross a hole; give more")


def point_set(config: FluxConfig, domain, velocity: float):
    """``(physical points, residual)`` of the flux term: the residual maps the fields (``u`` nondimensional, in
    units of ``velocity``) to each section's and time's relative flux error."""
    xs = section_xs(config, domain)
    (y0, y1) = np.asarray(domain.bounds, float)[1]
    nodes, weights = np.polynomial.legendre.leggauss(config.points)
    y = y0 + (y1 - y0) * (nodes + 1) / 2
    w = (y1 - y0) / 2 * weights * velocity / config.value
    pts = np.stack(np.broadcast_arrays(xs[:, None], y[None, :]), -1).reshape(-1, 2)
    if "t" in domain.coords:
        t0, t1 = domain.time
        ts = np.linspace(t0, t1, config.times) if config.times > 1 else np.asarray([(t0 + t1) / 2])
        pts = np.concatenate([np.tile(pts, (len(ts), 1)), np.repeat(ts, len(pts))[:, None]], -1)
    groups = len(pts) // len(w)  # a section at a time, in order
    weight, group = np.tile(w, groups), np.repeat(np.arange(groups), len(w))

    def residual(d) -> dict:  # (any u broadcasts: the requests are collected on a probe of one point)
        u = d["u"]
        flux = jax.ops.segment_sum(u * jnp.asarray(weight, u.dtype), jnp.asarray(group), num_segments=groups)
        return {"u": flux - 1.0}

    return pts, residual
