r"""Navier's double sine series for a rectangular plate simply supported on all four edges.

With :math:`\xi = x - x_0`, :math:`\eta = y - y_0`, :math:`\alpha_m = m\pi/a`, :math:`\beta_n = n\pi/b` and the
load's sine coefficients :math:`q_{mn}` (``sine.py``), every term of

.. math:: w = \sum_{m,n \ge 1} W_{mn} \sin\alpha_m\xi \,\sin\beta_n\eta, \qquad
          W_{mn} = \frac{q_{mn}}{D(\alpha_m^2 + \beta_n^2)^2}

satisfies :math:`w = 0` and :math:`w_{nn} = 0` on the four edges, and the sum satisfies
:math:`D\Delta^2 w = q` (Navier 1820; Timoshenko & Woinowsky-Krieger, *Theory of Plates and Shells*, 2nd ed.,
Ch. 5, Navier's solution).
Differentiating term by term,

.. math::
    M_x = D\sum (\alpha^2 + \nu\beta^2) W_{mn}\, s_m s_n, \quad
    M_y = D\sum (\beta^2 + \nu\alpha^2) W_{mn}\, s_m s_n, \quad
    M_{xy} = -D(1-\nu)\sum \alpha\beta W_{mn}\, c_m c_n,

    Q_x = \sum \frac{\alpha_m q_{mn}}{\alpha^2+\beta^2}\, c_m s_n, \quad
    Q_y = \sum \frac{\beta_n q_{mn}}{\alpha^2+\beta^2}\, s_m c_n,

with :math:`s_m = \sin\alpha_m\xi`, :math:`c_m = \cos\alpha_m\xi` (and likewise in :math:`\eta`).

Uniform load :math:`q_0`: :math:`q_{mn} = 16 q_0/(\pi^2 m n)` for odd :math:`m, n`, zero otherwise (eq. 134).
A load that knows its coefficients (a patch, ``patch.py``): those. Other loads: Gauss–Legendre quadrature of
the coefficient integrals; a product of sines such as :math:`980 \sin(\pi x/2)\sin(\pi y/3)` on
:math:`[0, 2]\times[0, 3]` comes out as one term to rounding.

Accuracy of the truncation :math:`m, n \le` ``terms`` (square plate, uniform load, ν = 0.3, measured against
``terms = 801``): the coefficients of :math:`w` fall like :math:`(mn)^{-1}(m^2+n^2)^{-2}`, those of the moments
like :math:`(mn)^{-1}(m^2+n^2)^{-1}`, those of the shears like :math:`n^{-1}(m^2+n^2)^{-1/2}`. At the centre,
``terms = 51`` gives :math:`w` to :math:`10^{-8}` and :math:`M_x` to :math:`1.2\cdot10^{-5}` relative; the
default ``terms = 201`` gives :math:`w` to :math:`10^{-11}` and the moments to :math:`2\cdot10^{-7}` (the error
falls like ``terms``:sup:`-3`). The shears converge like ``terms``:sup:`-1` on the edges: at the middle of an
edge :math:`Q_x = 0.33664\,qa` with 201 terms and 0.33740 with 801, against 0.337657 (Lévy, exact there;
Timoshenko's Table 8 gives 0.338). For shears near the edges, or an exactly summed uniform load, use the Lévy
series (``levy.py``), which handles this plate too.
"""
from __future__ import annotations

import numpy as np

from . import sine
from .evaluate import evaluate
from .plate import Load, make_load

DEFAULT_TERMS = 201


def navier_coefficients(bounds, load: Load, terms: int = DEFAULT_TERMS, quad_nodes: int | None = None):
    """Sine coefficients :math:`q_{mn}`, ``m, n = 1..terms``, as a ``(terms, terms)`` array."""
    (x0, x1), (y0, y1) = bounds
    a, b = x1 - x0, y1 - y0
    if load.value is not None:  # uniform
        m = np.arange(1, terms + 1)
        odd = (m % 2 == 1).astype(float)
        return 16.0 * load.value / np.pi**2 * np.outer(odd / m, odd / m)
    if load.coefficients is not None:  # closed form (a patch)
        return load.coefficients(bounds, terms)
    n = quad_nodes or sine.nodes_for(terms)
    Sx, xi = sine.sine_matrix(a, terms, n)
    Sy, eta = sine.sine_matrix(b, terms, n)
    X, Y = np.meshgrid(x0 + xi, y0 + eta, indexing="ij")
    return Sx @ load(X, Y) @ Sy.T


def navier_plate(bounds, D, nu, load, x, y, *, terms: int = DEFAULT_TERMS, uniform: bool | None = None,
                 quad_nodes: int | None = None) -> dict:
    """Fields ``w, mx, my, mxy, qx, qy`` of the all-simply-supported plate at the points ``(x, y)``.

    ``bounds = ((x0, x1), (y0, y1))``; ``load`` is a number (uniform load) or a vectorised ``q(x, y)``; see
    ``plate.make_load`` for ``uniform``. ``terms`` is the largest ``m`` and ``n`` kept.
    """
    (x0, x1), (y0, y1) = bounds
    a, b = x1 - x0, y1 - y0
    load = make_load(load, bounds, uniform)
    q = navier_coefficients(bounds, load, terms, quad_nodes)
    keep_m = np.flatnonzero(np.any(q != 0, axis=1))
    keep_n = np.flatnonzero(np.any(q != 0, axis=0))
    q = q[np.ix_(keep_m, keep_n)]
    al = (keep_m + 1)[:, None] * np.pi / a
    be = (keep_n + 1)[None, :] * np.pi / b
    k2 = al**2 + be**2
    W = q / (D * k2**2)
    coef = {
        "w": W,
        "mx": D * (al**2 + nu * be**2) * W,
        "my": D * (be**2 + nu * al**2) * W,
        "mxy": -D * (1 - nu) * al * be * W,
        "qx": al * q / k2,
        "qy": be * q / k2,
    }
    al, be = al[:, 0], be[0, :]

    def kernel(xs, ys, combine):
        ax, by = np.outer(xs - x0, al), np.outer(ys - y0, be)
        sx, cx, sy, cy = np.sin(ax), np.cos(ax), np.sin(by), np.cos(by)
        return {
            "w": combine(sx, coef["w"], sy),
            "mx": combine(sx, coef["mx"], sy),
            "my": combine(sx, coef["my"], sy),
            "mxy": combine(cx, coef["mxy"], cy),
            "qx": combine(cx, coef["qx"], sy),
            "qy": combine(sx, coef["qy"], cy),
        }

    return evaluate(x, y, kernel)
