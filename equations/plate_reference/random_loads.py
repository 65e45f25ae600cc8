r"""The plate-loading operator's data: random loads on the unit square and their deflections and moments: exact
on the simply supported square (Navier's double sine series, ``navier.py``), by Richardson-extrapolated finite
differences on the clamped one (``edges="clamped"``, :func:`clamped`).

Every load is known by its double sine coefficients, exactly:

.. math:: q(x, y) = \sum_{m,n \ge 1} q_{mn} \sin m\pi x \,\sin n\pi y, \qquad
          w = \sum_{m,n} \frac{q_{mn}}{D\pi^4 (m^2 + n^2)^2} \sin m\pi x \,\sin n\pi y,

so a sample costs one 2-D sine transform (two matrix products) whatever the grid. The families (``LOADS``,
summed when several are asked for):

- ``grf``: a Gaussian random field in the zero-flux cosine basis (as the Darcy inputs, but with its own fixed
  number of modes, so that a load is the same function on every grid, and with its mean),
  :math:`q = \sigma\sum_{0 \le k, l < K} (\pi^2(k^2 + l^2) + \tau^2)^{-\alpha/2}\,\xi_{kl}\,\phi_k(x)\phi_l(y)`,
  :math:`\phi_0 = 1`, :math:`\phi_k = \sqrt2\cos k\pi x`, :math:`\xi_{kl} \sim N(0, 1)`. It need not vanish on the
  edges; its sine coefficients come from :math:`2\int_0^1 \cos k\pi x\,\sin m\pi x\,dx =
  2m\,(1 - (-1)^{m+k}) / (\pi(m^2 - k^2))` (0 for :math:`m = k`): :math:`q_{mn} = (S\,C\,S^T)_{mn}`. With the
  defaults (:math:`\sigma = \tau^\alpha`) the uniform part of the load is :math:`N(0, 1)`.
- ``patches``: 1 to ``patches`` uniform loads on random rectangles :math:`[x_1, x_2] \times [y_1, y_2]` whose
  sides lie between ``patch_width`` bounds (point-like when small), each carrying a total force
  :math:`P \sim` ``force`` × U(0.2, 1) spread over its area (Timoshenko & Woinowsky-Krieger, Ch. 5):
  :math:`q_{mn} = \frac{4 P}{\pi^2 m n\,|{\rm patch}|}(\cos m\pi x_1 - \cos m\pi x_2)(\cos n\pi y_1 - \cos n\pi y_2)`.

Fields on the closed grid :math:`x_i = i/(s-1)`, from the coefficients :math:`m, n \le` ``terms``: the load
``q`` (its values at the grid points, from its own series for ``grf`` and its indicator for ``patches``), and
the deflection ``w`` and the moments ``mx``, ``my``, ``mxy`` (the sign convention of ``plate.py``). The
truncation error (rms over the plate) falls like ``terms``:sup:`-4` or faster for ``w`` and about
``terms``:sup:`-2.5` for the moments (tests/equations/plate_reference/test_random_loads.py measures it): with
the default 256 terms ``w`` is exact to about 3e-11 (rms, relative).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .fd import fd_solve

FIELDS = ("w", "mx", "my", "mxy")


def cosine_to_sine(terms: int, modes: int) -> np.ndarray:
    r"""``S (terms, modes)``: the sine coefficients ``m = 1..terms`` on [0, 1] of the orthonormal cosines
    :math:`\phi_k`, ``k = 0..modes-1``."""
    m = np.arange(1, terms + 1)[:, None].astype(float)
    k = np.arange(modes)[None, :].astype(float)
    odd = (m + k) % 2 == 1
    S = np.where(odd, 4.0 * m / (np.pi * np.where(odd, m * m - k * k, 1.0)), 0.0)
    S[:, 1:] *= np.sqrt(2.0)
    return S


def cosines(x: np.ndarray, modes: int) -> np.ndarray:
    r""":math:`\phi_k(x)`, ``(len(x), modes)``."""
    phi = np.sqrt(2.0) * np.cos(np.pi * np.outer(x, np.arange(modes)))
    phi[:, 0] = 1.0
    return phi


def grf(rng: np.random.Generator, terms: int, *, alpha: float = 2.0, tau: float = 3.0,
        sigma: float | None = None, modes: int = 32) -> tuple[np.ndarray, Callable]:
    """One ``grf`` load: its sine coefficients ``(terms, terms)`` and the load ``q(x, y)`` (vectorised)."""
    k = np.arange(modes)
    sigma = tau ** alpha if sigma is None else sigma
    C = sigma * (np.pi ** 2 * (k[:, None] ** 2 + k[None, :] ** 2) + tau ** 2) ** (-alpha / 2) \
        * rng.standard_normal((modes, modes))
    S = cosine_to_sine(terms, modes)

    def load(x, y):
        x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
        return np.einsum("pk,kl,pl->p", cosines(x.ravel(), modes), C, cosines(y.ravel(), modes)).reshape(x.shape)

    return S @ C @ S.T, load


def patches(rng: np.random.Generator, terms: int, *, patches: int = 4, patch_width: Sequence[float] = (0.05, 0.4),
            force: float = 1.0) -> tuple[np.ndarray, Callable]:
    """One ``patches`` load: 1 to ``patches`` uniform rectangles; its sine coefficients and the load ``q(x, y)``."""
    lo, hi = patch_width
    m = np.arange(1, terms + 1)
    q_mn, rects = np.zeros((terms, terms)), []
    for _ in range(rng.integers(1, patches + 1)):
        width = rng.uniform(lo, hi, 2)
        corner = rng.uniform(0.0, 1.0 - width)
        rects.append((force * rng.uniform(0.2, 1.0) / np.prod(width), corner, corner + width))
    for intensity, (x1, y1), (x2, y2) in rects:
        fx, fy = ((np.cos(m * np.pi * a) - np.cos(m * np.pi * b)) / (np.pi * m) for a, b in ((x1, x2), (y1, y2)))
        q_mn += 4.0 * intensity * np.outer(fx, fy)
    return q_mn, Rectangles(tuple(rects))


@dataclass(frozen=True)
class Rectangles:
    """A patch load ``q(x, y)`` (:func:`rectangles` of ``rects``) that knows where it jumps: ``lines()``."""

    rects: tuple

    def __call__(self, x, y) -> np.ndarray:
        return rectangles(self.rects, x, y)

    def lines(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The rectangles' edges, ``(xs, ys)``: the lines along which the load jumps."""
        xs, ys = (tuple(sorted({float(p[a]) for _, *corners in self.rects for p in corners})) for a in (0, 1))
        return xs, ys


def rectangles(rects, x, y) -> np.ndarray:
    """``Σ_i q_i 1[x1_i <= x <= x2_i, y1_i <= y <= y2_i]`` for ``rects = [(q_i, (x1, y1), (x2, y2)), ...]``."""
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    return sum((q * ((x >= a[0]) & (x <= b[0]) & (y >= a[1]) & (y <= b[1])) for q, a, b in rects),
               np.zeros(x.shape))


LOADS: dict[str, Callable] = {"grf": grf, "patches": patches}


def solution(q_mn: np.ndarray, x: np.ndarray, D: float = 1.0, nu: float = 0.3) -> dict[str, np.ndarray]:
    """``w, mx, my, mxy`` on the grid ``x × x`` from sine coefficients ``q_mn (..., terms, terms)``."""
    terms = q_mn.shape[-1]
    a = np.arange(1, terms + 1) * np.pi
    al, be = a[:, None], a[None, :]
    W = q_mn / (D * (al ** 2 + be ** 2) ** 2)
    s, c = np.sin(np.outer(x, a)), np.cos(np.outer(x, a))
    synth = lambda X, C, Y: np.einsum("im,...mn,jn->...ij", X, C, Y, optimize=True)
    return {"w": synth(s, W, s), "mx": synth(s, D * (al ** 2 + nu * be ** 2) * W, s),
            "my": synth(s, D * (be ** 2 + nu * al ** 2) * W, s), "mxy": synth(c, -D * (1 - nu) * al * be * W, c)}


def clamped(load: Callable, x: np.ndarray, D: float = 1.0, nu: float = 0.3) -> dict[str, np.ndarray]:
    """``w, mx, my, mxy`` of the clamped unit square under ``load(x, y)`` on the closed grid ``x × x``: finite
    differences on that grid and on the one twice as fine, Richardson-extrapolated (``fd.py``, fourth order for a
    smooth load; one sparse LU per grid for a whole dataset)."""
    n = len(x) - 1
    solution = fd_solve(((0.0, 1.0), (0.0, 1.0)), "clamped", D, nu, load, uniform=False, counts=(n, n))
    return {k: solution.fields[k] for k in FIELDS}


def _summed(loads: Sequence[Callable], x, y) -> np.ndarray:
    """``Σ_i load_i(x, y)``."""
    return sum((f(x, y) for f in loads), np.zeros(np.broadcast(x, y).shape))


EDGES = ("simply_supported", "clamped")  # all four edges alike


def generate(n_samples: int, resolution: int, seed: int, progress=None, *, loads: Sequence[str] = ("grf",),
             fields: Sequence[str] = ("w",), terms: int = 256, D: float = 1.0, nu: float = 0.3, alpha: float = 2.0,
             tau: float = 3.0, sigma: float | None = None, modes: int = 32, patches: int = 4,
             patch_width: Sequence[float] = (0.05, 0.4), force: float = 1.0,
             edges: str = "simply_supported") -> dict[str, np.ndarray]:
    """``n_samples`` loads on the closed ``resolution``-point grid of the unit square and their solutions.

    Returns ``{"q": (n, s, s), "fields": (n, s, s, len(fields)), "x": (s,)}``, ``fields`` named from
    :data:`FIELDS` (``w, mx, my, mxy``). ``edges``: ``simply_supported`` (Navier's series, exact) or ``clamped``
    (:func:`clamped`, finite differences; the loads are the same draws).
    Sample ``i`` depends on ``(seed, i)`` and the parameters only; ``progress(1)`` after each sample.
    """
    if edges not in EDGES:
        raise ValueError(f"edges: expected one of {', '.join(EDGES)}, got {edges!r}")
    if np.ndim(patch_width) != 1 or len(patch_width) != 2:
        raise ValueError(f"patch_width: expected [smallest, largest] side, got {patch_width!r}")
    options: dict[str, dict[str, Any]] = {"grf": {"alpha": alpha, "tau": tau, "sigma": sigma, "modes": modes},
               "patches": {"patches": patches, "patch_width": patch_width, "force": force}}
    for key, given, known in (("loads", loads, LOADS), ("fields", fields, FIELDS)):
        if not given or any(name not in known for name in given):
            raise ValueError(f"{key}: expected a list of {', '.join(known)}, got {list(given)}")
    if not (terms >= 1 and D > 0 and -1.0 < nu < 0.5 and resolution >= 2 and patches >= 1
            and 0.0 < patch_width[0] <= patch_width[1] <= 1.0):
        raise ValueError(f"need terms >= 1, D > 0, -1 < nu < 0.5, patches >= 1 and 0 < patch_width[0] <= "
                         f"patch_width[1] <= 1; got terms={terms}, D={D}, nu={nu}, patches={patches}, "
                         f"patch_width={list(patch_width)}")
    x = np.linspace(0.0, 1.0, resolution)
    X, Y = np.meshgrid(x, x, indexing="ij")
    q_out = np.empty((n_samples, resolution, resolution))
    f_out = np.empty((n_samples, resolution, resolution, len(fields)))
    for i, seq in enumerate(np.random.SeedSequence(seed).spawn(n_samples)):
        rng = np.random.default_rng(seq)
        draws = [LOADS[name](rng, terms, **options[name]) for name in loads]  # (sine coefficients, q(x, y))
        q_mn = sum((c for c, _ in draws), np.zeros((terms, terms)))
        total = functools.partial(_summed, [load for _, load in draws])
        q = total(X, Y)
        out = solution(q_mn, x, D, nu) if edges == "simply_supported" else clamped(total, x, D, nu)
        q_out[i], f_out[i] = q, np.stack([out[k] for k in fields], -1)
        if progress is not None:
            progress(1)
    return {"q": q_out, "fields": f_out, "x": x}
