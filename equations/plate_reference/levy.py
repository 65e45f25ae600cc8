r"""Lévy's single series for a rectangular plate simply supported on two opposite edges.

Let the edges ``left`` and ``right`` (:math:`\xi = x - x_0 = 0, a`) be simply supported; ``bottom`` and ``top``
(:math:`\eta = y - y_0 = 0, b`) may each be simply supported, clamped or free. (With ``bottom`` and ``top``
simply supported instead, the plate is solved with x and y exchanged.) Expanding
:math:`q = \sum_m q_m(\eta)\sin\alpha_m\xi`, :math:`\alpha_m = m\pi/a`, the deflection
:math:`w = \sum_m Y_m(\eta) \sin\alpha_m\xi` satisfies the simple supports term by term and
:math:`D\Delta^2 w = q` when each mode solves

.. math:: D\,(Y'''' - 2\alpha^2 Y'' + \alpha^4 Y) = q_m(\eta)

(Timoshenko & Woinowsky-Krieger, *Theory of Plates and Shells*, 2nd ed.: Lévy's solution in Ch. 5, the other
edge conditions in Ch. 6). The edge conditions on
:math:`\eta = 0, b` become, per mode (with :math:`w_{xx} = -\alpha^2 Y \sin\alpha\xi`):

- simply supported: :math:`Y = 0`, :math:`Y'' - \nu\alpha^2 Y = 0`;
- clamped: :math:`Y = 0`, :math:`Y' = 0`;
- free: :math:`M_y = 0 \Leftrightarrow Y'' - \nu\alpha^2 Y = 0` and
  :math:`V_y = 0 \Leftrightarrow w_{yyy} + (2-\nu) w_{xxy} = 0 \Leftrightarrow Y''' - (2-\nu)\alpha^2 Y' = 0`.

**Loads constant in y** (:math:`q_m` constant, e.g. uniform or hydrostatic in x): exactly
:math:`Y = q_m/(D\alpha^4) + (A + B s_1)e^{-s_1} + (C + E s_2)e^{-s_2}` with :math:`s_1 = \alpha\eta`,
:math:`s_2 = \alpha(b - \eta)`. This is Timoshenko's cosh/sinh solution rewritten with decaying exponentials
measured from each edge, so no term overflows for any :math:`\alpha b`; the four constants come from a
:math:`4\times4` system per mode, using :math:`\frac{d^k}{ds^k}(A + Bs)e^{-s} = (-1)^k(A - kB + Bs)e^{-s}`. For a
uniform load the particular part :math:`\sum_m q_m \sin(\alpha_m\xi)/(D\alpha_m^4)` is summed in closed form, the
simply supported beam :math:`w_b = \frac{q}{24D}(\xi^4 - 2a\xi^3 + a^3\xi)`, so that the remaining series decays
like :math:`e^{-\alpha_m d}` at a distance :math:`d` from the edges ``bottom``/``top``: at the centre of a square
plate moments and shears are exact to rounding with a few terms.

**Other loads**: :math:`q_m(\eta)` by Gauss quadrature in x at Chebyshev points in y, and each mode's
boundary-value problem by the ultraspherical spectral method (``chebyshev.py``), with enough coefficients to
resolve the load and the boundary layers of width :math:`1/\alpha_m`.

Accuracy: the series is truncated at ``m <= terms`` (default 200). For the uniform load, with the beam part
exact, the truncation error in the interior is exponentially small (the centre values of the tests are exact to
rounding with 21 terms); on the edges ``bottom``/``top`` the remaining terms fall like :math:`m^{-5}` in
:math:`w` and :math:`m^{-3}` in the moments (edge conditions met to about :math:`3\cdot10^{-7}` of the largest
moment at 200 terms). For other loads the particular part is summed as a series too; it converges like
``terms``:sup:`-4` in :math:`w` and ``terms``:sup:`-2` in the moments relative to the scale :math:`q a^4/D`, which
costs accuracy on narrow strips: for :math:`b/a = 0.05` about :math:`10^{-6}` relative at 200 terms. The
Chebyshev and closed-form modes agree to about :math:`10^{-14}` (see the tests). A very narrow strip also loses
about :math:`4\log_{10}(a/\pi b)` digits in the closed-form modes to cancellation between particular and
homogeneous parts.
"""
from __future__ import annotations

import numpy as np

from . import chebyshev, sine
from .evaluate import evaluate
from .plate import Load, Plate, make_load, make_plate

DEFAULT_TERMS = 200
_SS = "simply_supported"


def _edge_rows(condition: str, nu: float) -> np.ndarray:
    r"""Two rows on :math:`(Y, Y'/\alpha, Y''/\alpha^2, Y'''/\alpha^3)` at an edge that must vanish."""
    return {
        "simply_supported": np.array([[1.0, 0, 0, 0], [-nu, 0, 1, 0]]),
        "clamped": np.array([[1.0, 0, 0, 0], [0, 1, 0, 0]]),
        "free": np.array([[-nu, 0, 1, 0], [0, -(2 - nu), 0, 1]]),
    }[condition]


def levy_plate(bounds, edges, D, nu, load, x, y, *, terms: int = DEFAULT_TERMS, uniform: bool | None = None,
               quad_nodes: int | None = None, y_solver: str = "auto") -> dict:
    """Fields ``w, mx, my, mxy, qx, qy`` at ``(x, y)`` for a plate with an opposite pair of simply supported edges.

    ``bounds = ((x0, x1), (y0, y1))``; ``edges`` maps ``left/right/bottom/top`` to ``simply_supported``,
    ``clamped`` or ``free``, and either ``left`` and ``right`` or ``bottom`` and ``top`` must both be simply
    supported; ``load`` is a number or a vectorised ``q(x, y)`` (see ``plate.make_load`` for ``uniform``);
    ``terms`` is the number of sine modes. ``y_solver``: ``"auto"`` solves each mode in closed form when the
    load does not vary along the simply supported edges and by Chebyshev (ultraspherical) otherwise;
    ``"chebyshev"`` always uses the latter (to cross-check the two).
    """
    if y_solver not in ("auto", "chebyshev"):
        raise ValueError(f"y_solver must be 'auto' or 'chebyshev', got {y_solver!r}")
    plate = make_plate(bounds, edges, D, nu)
    load = make_load(load, plate.bounds, uniform)
    e = plate.edges
    if e["left"] == e["right"] == _SS:
        return _levy_x(plate, load, x, y, terms, quad_nodes, y_solver)
    if e["bottom"] == e["top"] == _SS:
        swapped = Load(lambda u, v: load.func(v, u), load.value)
        r = _levy_x(plate.transposed(), swapped, y, x, terms, quad_nodes, y_solver)
        return {"w": r["w"], "mx": r["my"], "my": r["mx"], "mxy": r["mxy"], "qx": r["qy"], "qy": r["qx"]}
    raise ValueError("the Lévy series needs an opposite pair of simply supported edges (left and right, or "
                     f"bottom and top); got {e}")


def _closed_form_modes(plate: Plate, alpha: np.ndarray, c: np.ndarray):
    r"""Constants of :math:`Y = p + (A + Bs_1)e^{-s_1} + (C + Es_2)e^{-s_2}` per mode, :math:`p = c/(D\alpha^4)`."""
    b, nu = plate.b, plate.nu
    p = c / (plate.D * alpha**4)
    k = np.arange(4.0)
    sign = (-1.0) ** k
    ab = (alpha * b)[:, None]
    E = np.exp(-ab)
    # hat Y_k = Y^(k) / alpha^k at each edge as a linear map of (A, B, C, E): shape (modes, k, unknown)
    bottom = np.stack(np.broadcast_arrays(sign, -k * sign, E, E * (ab - k)), axis=-1)
    top = np.stack(np.broadcast_arrays(E * sign, E * sign * (ab - k), 1.0 + 0 * k, -k), axis=-1)
    Rb, Rt = _edge_rows(plate.edges["bottom"], nu), _edge_rows(plate.edges["top"], nu)
    A = np.concatenate([Rb @ bottom, Rt @ top], axis=1)
    rhs = -np.concatenate([Rb[:, 0] * p[:, None], Rt[:, 0] * p[:, None]], axis=1)
    u = np.linalg.solve(A, rhs[..., None])[..., 0]
    return p, u


def _closed_form_values(alpha, u, eta, b):
    r"""Homogeneous part :math:`Y_h^{(k)}(\eta)`, ``k = 0..3``, each ``(len(eta), modes)``."""
    s1 = np.outer(eta, alpha)
    s2 = np.outer(b - eta, alpha)
    e1, e2 = np.exp(-np.maximum(s1, 0.0)), np.exp(-np.maximum(s2, 0.0))
    A, B, C, E = u.T
    return [alpha**k * ((-1.0) ** k * (A - k * B + B * s1) * e1 + (C - k * E + E * s2) * e2) for k in range(4)]


def _load_in_y(plate: Plate, load: Load, S, xi, allow_constant: bool):
    """``(c, None)`` if the load is constant in y (``c``: the modes' :math:`q_m`), else ``(None, qhat)``.

    ``qhat``: Chebyshev coefficients in y (rows: modes) of :math:`q_m(y)`, on 33, 65, ... 513 points until the
    last eight coefficients fall to rounding; a load with a kink or jump in y stops at 513, with algebraic accuracy.
    """
    (x0, _), (y0, y1) = plate.bounds
    yc, h = (y0 + y1) / 2, (y1 - y0) / 2
    for n in (33, 65, 129, 257, 513):
        X, Y = np.meshgrid(x0 + xi, yc + h * chebyshev.points(n), indexing="ij")
        Q = load(X, Y)
        if allow_constant and n == 33 and np.all(np.abs(Q - Q[:, :1]) <= 1e-14 * np.abs(Q).max()):
            return S @ Q[:, 0], None
        qhat = chebyshev.coefficients(S @ Q, axis=1)
        scale = np.abs(qhat).max() or 1.0
        if np.abs(qhat[:, -8:]).max() <= 1e-14 * scale:
            break
    big = np.flatnonzero(np.abs(qhat).max(axis=0) > 1e-16 * scale)
    return None, qhat[:, : (big[-1] + 1 if big.size else 1)]


def _levy_x(plate: Plate, load: Load, x, y, terms: int, quad_nodes, y_solver):
    (x0, x1), (y0, y1) = plate.bounds
    a, b, D, nu = plate.a, plate.b, plate.D, plate.nu
    alpha = np.arange(1, terms + 1) * np.pi / a
    q = load.value if y_solver == "auto" else None  # a uniform load: sum the particular part in closed form
    beam = q is not None
    if q is not None:
        m = np.arange(1, terms + 1)
        c, qhat = np.where(m % 2 == 1, 4.0 * q / (np.pi * m), 0.0), None
    else:
        S, xi = sine.sine_matrix(a, terms, quad_nodes or sine.nodes_for(terms))
        c, qhat = _load_in_y(plate, load, S, xi, y_solver == "auto")

    if qhat is None:
        keep = np.flatnonzero(c != 0)
        alpha, c = alpha[keep], c[keep]
        p, u = _closed_form_modes(plate, alpha, c)

        def modes(eta):
            Y = _closed_form_values(alpha, u, eta, b)
            if not beam:
                Y[0] = Y[0] + p
            return Y
    else:
        keep = np.flatnonzero(np.abs(qhat).max(axis=1) > 0)
        alpha, qhat = alpha[keep], qhat[keep]
        h = b / 2
        Rb, Rt = _edge_rows(plate.edges["bottom"], nu), _edge_rows(plate.edges["top"], nu)
        coefs = []
        for al, qm in zip(alpha, qhat):
            kappa = al * h
            scale = kappa ** -np.arange(4.0)
            bc = np.vstack([Rb * scale, Rt * scale])
            n = chebyshev.degree_for(kappa, len(qm))
            coefs.append(chebyshev.solve(kappa, h**4 / D * qm, bc, n))
        width = max([len(cf) for cf in coefs], default=1)
        coef = np.zeros((width, len(coefs)))
        for j, cf in enumerate(coefs):
            coef[: len(cf), j] = cf

        def modes(eta):
            return chebyshev.evaluate(coef, (eta - b / 2) / h, h)

    def kernel(xs, ys, combine):
        xi = xs - x0
        sx, cx = np.sin(np.outer(xi, alpha)), np.cos(np.outer(xi, alpha))
        Y0, Y1, Y2, Y3 = modes(ys - y0)
        a2 = alpha**2
        out = {
            "w": combine(sx, None, Y0),
            "mx": combine(sx, None, D * (a2 * Y0 - nu * Y2)),
            "my": combine(sx, None, -D * (Y2 - nu * a2 * Y0)),
            "mxy": combine(cx, None, -D * (1 - nu) * alpha * Y1),
            "qx": combine(cx, None, -D * alpha * (Y2 - a2 * Y0)),
            "qy": combine(sx, None, -D * (Y3 - a2 * Y1)),
        }
        if q is not None:
            one = np.ones((len(ys), 1))
            wb = q / (24 * D) * (xi**4 - 2 * a * xi**3 + a**3 * xi)
            wb2 = q / (2 * D) * (xi**2 - a * xi)
            out["w"] = out["w"] + combine(wb[:, None], None, one)
            out["mx"] = out["mx"] + combine(-D * wb2[:, None], None, one)
            out["my"] = out["my"] + combine(-D * nu * wb2[:, None], None, one)
            out["qx"] = out["qx"] + combine(q * (a / 2 - xi)[:, None], None, one)
        return out

    return evaluate(x, y, kernel)
