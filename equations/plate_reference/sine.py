r"""Sine coefficients of a load by Gauss–Legendre quadrature.

On :math:`[0, a]` the half-range sine coefficients of :math:`f` are
:math:`f_m = \frac{2}{a}\int_0^a f(\xi) \sin(\alpha_m \xi)\, d\xi`, :math:`\alpha_m = m\pi/a`, and on the
rectangle :math:`q_{mn} = \frac{4}{ab}\iint q \sin(\alpha_m \xi)\sin(\beta_n \eta)\,d\xi\,d\eta`
(Timoshenko & Woinowsky-Krieger, Navier's solution). With an :math:`N`-point Gauss–Legendre rule these are
matrix products, :math:`q_{mn} = (S_x Q S_y^T)_{mn}` with :math:`(S_x)_{mi} = \frac{2}{a} w_i \sin(\alpha_m \xi_i)`.
For a load that is smooth on the closed rectangle the rule converges exponentially once :math:`N` exceeds about
:math:`\pi m_{\max}/2` plus the load's own resolution; ``nodes_for`` uses :math:`2 m_{\max} + 48`. A load with
jumps or kinks inside the plate gets only algebraic accuracy from this rule.
"""
from __future__ import annotations

import numpy as np
from scipy.special import roots_legendre


def nodes_for(terms: int) -> int:
    """Number of Gauss nodes per direction used for ``terms`` sine modes."""
    return 2 * int(terms) + 48


def gauss(length: float, n: int):
    """Gauss–Legendre nodes and weights on ``[0, length]``."""
    t, w = roots_legendre(n)
    return 0.5 * length * (t + 1.0), 0.5 * length * w


def sine_matrix(length: float, terms: int, n: int):
    """``(S, nodes)``: ``S @ f(nodes)`` are the sine coefficients ``f_1 .. f_terms`` on ``[0, length]``."""
    xi, w = gauss(length, n)
    alpha = np.arange(1, terms + 1)[:, None] * np.pi / length
    return (2.0 / length) * w[None, :] * np.sin(alpha * xi[None, :]), xi
