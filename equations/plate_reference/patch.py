r"""A uniform pressure on a rectangular patch: the load itself and its sine coefficients in closed form.

The patch presses :math:`q_0` on :math:`[x_c - u/2, x_c + u/2] \times [y_c - v/2, y_c + v/2]` inside the plate
:math:`[x_0, x_0 + a] \times [y_0, y_0 + b]` and nothing elsewhere. Its half-range sine coefficients factor,
:math:`q_{mn} = q_0\, p_m(a, \xi_c, u)\, p_n(b, \eta_c, v)` with :math:`\xi_c = x_c - x_0`, :math:`\eta_c = y_c - y_0`
and

.. math:: p_m(a, \xi_c, u) = \frac{2}{a}\int_{\xi_c - u/2}^{\xi_c + u/2} \sin\frac{m\pi\xi}{a}\,d\xi
          = \frac{4}{m\pi} \sin\frac{m\pi\xi_c}{a} \sin\frac{m\pi u}{2a},

Timoshenko & Woinowsky-Krieger, *Theory of Plates and Shells*, 2nd ed., Ch. 5 (Navier's solution, eq. 137 for a
load uniformly distributed over a rectangle): exact for every term, where Gauss quadrature of the jumps gets
only algebraic accuracy (``sine.py``). A patch covering the whole plate is the uniform load's eq. 134,
:math:`16 q_0 / (\pi^2 m n)` for odd :math:`m, n`.
"""
from __future__ import annotations

import numpy as np

from .plate import Load


def sine_factors(length: float, centre: float, size: float, terms: int) -> np.ndarray:
    """``p_1 .. p_terms`` of a unit pulse of width ``size`` centred at ``centre`` (from the span's start) on a
    span of ``length`` (module notes)."""
    m = np.arange(1, terms + 1)
    return 4.0 / (m * np.pi) * np.sin(m * np.pi * centre / length) * np.sin(m * np.pi * size / (2.0 * length))


def patch_load(q0: float, centre, size) -> Load:
    """The load ``q0`` on the rectangle of ``centre = (x_c, y_c)`` and sides ``size = (u, v)``: its values (the
    indicator) and its sine coefficients on any plate (``coefficients(bounds, terms)``, module notes)."""
    (xc, yc), (u, v) = (float(c) for c in centre), (float(s) for s in size)

    def values(x, y):
        inside = (np.abs(np.asarray(x) - xc) <= u / 2) & (np.abs(np.asarray(y) - yc) <= v / 2)
        return q0 * inside.astype(float)

    def coefficients(bounds, terms: int) -> np.ndarray:
        (x0, x1), (y0, y1) = bounds
        return q0 * np.outer(sine_factors(x1 - x0, xc - x0, u, terms), sine_factors(y1 - y0, yc - y0, v, terms))

    return Load(values, coefficients=coefficients)
