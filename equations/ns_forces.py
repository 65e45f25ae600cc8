r"""Forces on a circular cylinder, pressure differences and the Strouhal number of a 2D flow.

The quantities of the DFG benchmark "flow around a cylinder" (Schäfer & Turek 1996) as functions of a flow
``flow(points (N, 2)) -> {"u", "v", "p", "u_x", "u_y", "v_x", "v_y": (N,)}`` in physical units (a trained
network's values and autodiff derivatives, or an exact field).

**Forces** on the circle :math:`S` of radius :math:`a` around :math:`c`, with :math:`n` the unit normal
pointing into the fluid, :math:`t = (n_y, -n_x)` and :math:`u_t = u\cdot t`:

.. math:: F_D = \int_S \Big(\rho\nu \frac{\partial u_t}{\partial n} n_y - p n_x\Big) dS, \qquad
          F_L = -\int_S \Big(\rho\nu \frac{\partial u_t}{\partial n} n_x + p n_y\Big) dS

(the benchmark's formula), and the integral of the full Cauchy stress
:math:`\sigma = -pI + \rho\nu(\nabla u + \nabla u^T)`, :math:`F = \int_S \sigma n\, dS`. The two agree for a
divergence-free field with no slip on :math:`S`; a network's small wall slip makes them differ, so both are
reported. The integrands are smooth and periodic in the angle, so the trapezoid rule on ``n`` equally spaced
points converges spectrally.

**Volume forces** (:func:`volume_forces`, the weak form finite-element codes use for this benchmark, e.g. V. John,
Finite Element Methods for Incompressible Flow Problems, 2016, Example D.5): with a test function
:math:`\phi` equal to 1 on :math:`S` and 0 outside the ring :math:`a \le r \le R`,

.. math:: F_D = -\int_\Omega \big(\rho (u\cdot\nabla u)\cdot e_x \phi + \rho\nu \nabla u\cdot\nabla\phi
          - p\, \partial_x\phi\big)\, dx, \qquad
          F_L = -\int_\Omega \big(\rho (u\cdot\nabla u)\cdot e_y \phi + \rho\nu \nabla v\cdot\nabla\phi
          - p\, \partial_y\phi\big)\, dx.

Integrating by parts, this is :math:`\int_S (\rho\nu\,\partial u/\partial n - p n)\, dS` (the benchmark's
formula for a no-slip, divergence-free field) less :math:`\int_\Omega R\cdot(\phi e)\, dx`, :math:`R` the
momentum residual :math:`\rho(\partial_t u + (u\cdot\nabla)u) + \nabla p - \rho\nu\Delta u`: for an exact
solution it is the force whatever :math:`\phi`, and it needs no derivative of the field at the wall. Here
:math:`\phi(r) = 1 - s^2 (3 - 2s)`, :math:`s = (r - a)/(R - a)`, and the ring's quadrature is Gauss–Legendre in
:math:`r` times the trapezoid rule in the angle (:func:`ring`). An obstacle of any shape (a polygon, an airfoil)
takes the same form with :math:`s = d/\delta`, :math:`d` the distance to its wall, over the band
:math:`d < \delta` by the midpoint rule on square cells (:func:`band_forces`). A frozen unsteady flow adds
:math:`\rho\,\partial_t u\cdot e\,\phi` to the integrand (from ``u_t``, ``v_t`` in the flow's values; absent:
steady).

**Coefficients**: :math:`c = 2F/(\rho U_{mean}^2 D)`, :math:`D = 2a`.

**Oscillations** of a periodic run (:func:`oscillation`): the period from the upward zero crossings of
:math:`c_L - \bar c_L` (linear interpolation between samples) over the last ``periods`` periods,
:math:`St = D/(U_{mean} T)`, and the largest :math:`c_D` and :math:`c_L` over those periods (the sampled
maximum refined by the parabola through it and its neighbours).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Flow = Callable[[np.ndarray], dict]  # physical points (N, 2) -> {u, v, p, u_x, u_y, v_x, v_y[, u_t, v_t]}


@dataclass(frozen=True)
class Forces:
    """Drag and lift by the benchmark's formula, and by the full-stress integral (``*_stress``)."""

    drag: float
    lift: float
    drag_stress: float
    lift_stress: float

    def coefficients(self, rho: float, u_mean: float, diameter: float) -> dict[str, float]:
        """``c_D_surface``, ``c_L_surface`` (the benchmark's formula), ``c_D_stress``, ``c_L_stress``: each force
        times ``2 / (rho U_mean^2 D)``."""
        k = coefficient(1.0, rho, u_mean, diameter)
        return {"c_D_surface": k * self.drag, "c_L_surface": k * self.lift,
                "c_D_stress": k * self.drag_stress, "c_L_stress": k * self.lift_stress}


def coefficient(force: float, rho: float, u_mean: float, diameter: float) -> float:
    """``2 force / (rho U_mean^2 D)``."""
    return 2.0 * force / (rho * u_mean**2 * diameter)


def circle(center, radius: float, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """``(points (n, 2), normals into the fluid (n, 2), weight)``: the trapezoid rule on the circle, every
    point with the same weight ``2 pi radius / n``."""
    theta = 2 * np.pi * np.arange(n) / n
    normals = np.stack([np.cos(theta), np.sin(theta)], -1)
    return np.asarray(center, float) + radius * normals, normals, 2 * np.pi * radius / n


def surface_forces(flow: Flow, center, radius: float, nu: float, rho: float = 1.0, n: int = 512) -> Forces:
    """The force of the fluid on the cylinder of ``radius`` around ``center`` (module notes)."""
    return line_forces(flow, *circle(center, radius, n), nu, rho)


def line_forces(flow: Flow, pts: np.ndarray, normals: np.ndarray, w, nu: float, rho: float = 1.0) -> Forces:
    """The force of the fluid on a wall by the quadrature ``pts (n, 2)``, ``w`` (a weight per point, or one for
    all), ``normals`` the unit normals into the fluid (module notes: both formulas)."""
    f = {k: np.asarray(v, float) for k, v in flow(pts).items()}
    nx, ny = normals[:, 0], normals[:, 1]
    mu = rho * nu
    dut_dn = ny * (nx * f["u_x"] + ny * f["u_y"]) - nx * (nx * f["v_x"] + ny * f["v_y"])
    drag = w * np.sum(mu * dut_dn * ny - f["p"] * nx)
    lift = -w * np.sum(mu * dut_dn * nx + f["p"] * ny)
    shear = f["u_y"] + f["v_x"]
    drag_stress = w * np.sum(mu * (2 * f["u_x"] * nx + shear * ny) - f["p"] * nx)
    lift_stress = w * np.sum(mu * (shear * nx + 2 * f["v_y"] * ny) - f["p"] * ny)
    return Forces(float(drag), float(lift), float(drag_stress), float(lift_stress))


def ring(center, inner: float, outer: float, n_r: int, n_theta: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(points (n_r n_theta, 2), their radii, weights)``: Gauss-Legendre in the radius on ``[inner, outer]``
    times the trapezoid rule in the angle, for integrals over the ring in the plane (weights include ``r``)."""
    s, ws = np.polynomial.legendre.leggauss(n_r)
    r = inner + (outer - inner) * (s + 1) / 2
    theta = 2 * np.pi * np.arange(n_theta) / n_theta
    R, T = (a.ravel() for a in np.meshgrid(r, theta, indexing="ij"))
    w = np.repeat(ws * (outer - inner) / 2 * r, n_theta) * (2 * np.pi / n_theta)
    pts = np.asarray(center, float) + R[:, None] * np.stack([np.cos(T), np.sin(T)], -1)
    return pts, R, w


def cutoff(r: np.ndarray, inner: float, outer: float) -> tuple[np.ndarray, np.ndarray]:
    """``(phi, dphi/dr)`` of the test function of the volume forces: 1 at ``inner``, 0 at ``outer``, flat at
    both (module notes)."""
    s = (r - inner) / (outer - inner)
    return 1 - s**2 * (3 - 2 * s), -6 * s * (1 - s) / (outer - inner)


def volume_forces(flow: Flow, center, radius: float, nu: float, rho: float = 1.0, outer: float | None = None,
                  n_r: int = 48, n_theta: int = 256) -> tuple[float, float]:
    """``(drag, lift)`` by the volume integral over the ring ``radius <= r <= outer``
    (default ``3 radius``) around ``center`` (module notes); the ring must lie in the fluid."""
    outer = 3 * radius if outer is None else outer
    pts, r, w = ring(center, radius, outer, n_r, n_theta)
    phi, dphi = cutoff(r, radius, outer)
    grad = (pts - np.asarray(center, float)) / r[:, None]
    return weak_forces(flow(pts), w, phi, dphi[:, None] * grad, nu, rho)


def weak_forces(f: dict, w: np.ndarray, phi: np.ndarray, grad_phi: np.ndarray, nu: float,
                rho: float = 1.0) -> tuple[float, float]:
    """``(drag, lift)``: the volume integral of the module notes by the quadrature of weights ``w (N,)`` at the
    points where the flow's values are ``f`` and the test function is ``phi (N,)``, its gradient ``grad_phi
    (N, 2)``."""
    f = {k: np.asarray(v, float) for k, v in f.items()}
    mu = rho * nu

    def force(q: str, p_grad: np.ndarray) -> float:  # the component of the velocity q, the pressure's part
        inertia = rho * (f.get(f"{q}_t", 0.0) + f["u"] * f[f"{q}_x"] + f["v"] * f[f"{q}_y"]) * phi
        viscous = mu * (f[f"{q}_x"] * grad_phi[:, 0] + f[f"{q}_y"] * grad_phi[:, 1])
        return -float(np.sum(w * (inertia + viscous - f["p"] * p_grad)))

    return force("u", grad_phi[:, 0]), force("v", grad_phi[:, 1])


def band(wall: np.ndarray, fluid: Callable[[np.ndarray], np.ndarray], width: float, cells: int = 64,
         split: int = 8) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The band of the fluid within ``width`` of an obstacle of any shape, given by points ``wall (M, 2)`` along
    its whole boundary, closely spaced (``fluid(points) -> (N,)`` True in the fluid): ``(points, distance to the
    wall, its gradient (N, 2), weight)``, the midpoint rule on square cells of side ``h = width / cells`` (those
    whose centre is in the band), each cell within ``h`` of the wall split into ``split²`` (the wall cuts those:
    a cell kept or dropped whole there would make the rule first order). The distance is to the nearest wall
    point (a k-d tree); its gradient is the unit vector from that point."""
    from scipy.spatial import cKDTree

    tree = cKDTree(wall)
    h = width / cells
    lo, hi = wall.min(axis=0) - width, wall.max(axis=0) + width
    axes = [lo[i] + h * (np.arange(int(np.ceil((hi[i] - lo[i]) / h))) + 0.5) for i in range(2)]
    pts = np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], -1)
    d = tree.query(pts, distance_upper_bound=width)[0]
    cut = d < h
    offsets = h * ((np.arange(split) + 0.5) / split - 0.5)
    within = np.stack(np.meshgrid(offsets, offsets, indexing="ij"), -1).reshape(-1, 2)
    fine = (pts[cut][:, None, :] + within).reshape(-1, 2)
    whole = pts[~cut & (d < width)]
    pts = np.concatenate([whole, fine])
    w = np.concatenate([np.full(len(whole), h * h), np.full(len(fine), (h / split) ** 2)])
    d, nearest = tree.query(pts)
    keep = (d < width) & fluid(pts)
    pts, d, nearest, w = pts[keep], d[keep], nearest[keep], w[keep]
    grad = (pts - wall[nearest]) / np.maximum(d, 1e-300)[:, None]
    return pts, d, grad, w


def band_forces(flow: Flow, wall: np.ndarray, fluid: Callable[[np.ndarray], np.ndarray], width: float, nu: float,
                rho: float = 1.0, cells: int = 64) -> tuple[float, float]:
    """``(drag, lift)`` on an obstacle of any shape by the volume integral (module notes) over the :func:`band`
    of ``width`` around it, with the test function ``phi = cutoff(distance to the wall)``: 1 on the wall, 0 from
    ``width`` on, flat at both. The band must lie in the fluid and meet no other boundary."""
    pts, d, grad, w = band(wall, fluid, width, cells)
    phi, dphi = cutoff(d, 0.0, width)
    return weak_forces(flow(pts), w, phi, dphi[:, None] * grad, nu, rho)


def pressure_difference(flow: Flow, a, b) -> float:
    """``p(a) - p(b)``."""
    p = np.asarray(flow(np.asarray([a, b], float))["p"], float)
    return float(p[0] - p[1])


def _crossings(t: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Times where ``c`` crosses zero upwards, by linear interpolation between samples."""
    i = np.flatnonzero((c[:-1] < 0) & (c[1:] >= 0))
    return t[i] + (t[i + 1] - t[i]) * (-c[i]) / (c[i + 1] - c[i])


def _peak(t: np.ndarray, y: np.ndarray) -> float:
    """The largest value of the samples ``y(t)``, refined by the parabola through the largest and its
    neighbours (the sampled maximum at an end)."""
    k = int(np.argmax(y))
    if k == 0 or k == len(y) - 1:
        return float(y[k])
    (t0, t1, t2), (y0, y1, y2) = t[k - 1:k + 2], y[k - 1:k + 2]
    d1 = (y1 - y0) / (t1 - t0)
    a = ((y2 - y1) / (t2 - t1) - d1) / (t2 - t0)  # Newton's form: y0 + d1 (t - t0) + a (t - t0)(t - t1)
    if a >= 0:
        return float(y1)
    tv = (t0 + t1) / 2 - d1 / (2 * a)
    return float(y0 + d1 * (tv - t0) + a * (tv - t0) * (tv - t1))


def _upcrossings(t, c_l) -> np.ndarray:
    """Times where ``c_L`` crosses its mean (the middle of its range) upwards."""
    return _crossings(t, c_l - (c_l.max() + c_l.min()) / 2)


def whole_periods(t, c_l, most: int = 2) -> int:
    """How many whole periods of ``c_L(t)`` were sampled (its upward crossings less one), at most ``most``."""
    t, c_l = np.asarray(t, float), np.asarray(c_l, float)
    return int(min(most, max(0, len(_upcrossings(t, c_l)) - 1)))


def oscillation(t, c_l, c_d, diameter: float, u_mean: float, periods: int = 2) -> dict[str, float]:
    """``{period, St, c_D_max, c_L_max}`` over the last ``periods`` periods of ``c_L(t)``, ``c_D(t)``
    (samples in increasing time; module notes). Raises ``ValueError`` when fewer periods were sampled."""
    t, c_l, c_d = (np.asarray(a, float) for a in (t, c_l, c_d))
    ups = _upcrossings(t, c_l)
    if len(ups) < periods + 1:
        raise ValueError(f"c_L crosses its mean upwards {len(ups)} times; {periods} periods need {periods + 1}")
    start, end = ups[-1 - periods], ups[-1]
    period = (end - start) / periods
    inside = (t >= start) & (t <= end)
    return {"period": float(period), "St": diameter / (u_mean * period),
            "c_D_max": _peak(t[inside], c_d[inside]), "c_L_max": _peak(t[inside], c_l[inside])}
