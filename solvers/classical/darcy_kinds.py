"""Darcy coefficients of kinds that the FNO dataset's never holds, for the study of an operator out of its
distribution (issue 72; ``sciml.bench.studies.darcy_pino_ood``).

The dataset's coefficients (:func:`.grf.darcy_coefficient`) are a Gaussian random field thresholded to the values
12 and 3. Beside new draws of that kind (``grf``), :func:`coefficients` makes, on the closed ``s``-point grid of
the unit square:

- ``contrast``: the same fields with the values 30 and 1 (a contrast of 30, where training saw 4);
- ``fine``: fields of a shorter correlation length (``tau`` 9 where the dataset has 3), thresholded to 12 and 3;
- ``smooth``: continuous fields between 3 and 12 (a logistic function of the untresholded field);
- ``constant``: 3 and 12 everywhere;
- ``inclusion``: a disk of radius 0.2 of one value in the other;
- ``layers``: five vertical and three horizontal stripes of 12 and 3.
"""
from __future__ import annotations

import numpy as np

from .grf import darcy_coefficient, neumann_grf, sample_rngs

KINDS = ("grf", "contrast", "fine", "smooth", "constant", "inclusion", "layers")


def coefficients(s: int, seed: int = 1, grf: int = 4) -> list[tuple[str, np.ndarray]]:
    """``[(kind, coefficient (s, s))]``: ``grf`` new draws of the dataset's own kind, two of each other kind
    (module notes), in the order of :data:`KINDS`; the random ones drawn from ``seed`` (the dataset's draws
    come from ``data.seed``, 0 in the shipped cases: take another)."""
    rng = sample_rngs(seed, 4)
    x = np.linspace(0.0, 1.0, s)
    X, Y = np.meshgrid(x, x, indexing="ij")
    disk = np.hypot(X - 0.4, Y - 0.55) < 0.2
    fields = neumann_grf(rng[3], 2, s)
    kinds = {
        "grf": list(darcy_coefficient(rng[0], grf, s)),
        "contrast": list(darcy_coefficient(rng[1], 2, s, high=30.0, low=1.0)),
        "fine": list(darcy_coefficient(rng[2], 2, s, tau=9.0)),
        "smooth": [3.0 + 9.0 / (1.0 + np.exp(-4.0 * g / g.std())) for g in fields],
        "constant": [np.full((s, s), 3.0), np.full((s, s), 12.0)],
        "inclusion": [np.where(disk, 3.0, 12.0), np.where(disk, 12.0, 3.0)],
        "layers": [np.where(np.floor(X * 5) % 2 == 0, 12.0, 3.0), np.where(np.floor(Y * 3) % 2 == 0, 3.0, 12.0)],
    }
    return [(kind, a) for kind in KINDS for a in kinds[kind]]
