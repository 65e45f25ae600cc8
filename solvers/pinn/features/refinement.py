"""Residual-based adaptive refinement (Lu et al., SIAM Review 63, 2021): every ``every`` Adam steps, score
``candidates`` uniform random interior points by their squared interior residual and add the ``add`` worst to
the collocation points, up to ``max_points`` added in all (``sampling.adaptive``; each process adds its share).
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import numpy as np

from ..config import AdaptiveConfig
from ..problem import Problem


class Refiner:
    """Keeps the added interior points (physical coordinates); off when ``cfg`` is None."""

    def __init__(self, cfg: AdaptiveConfig | None, rng: np.random.Generator,
                 share: Callable[[int], int] = lambda n: n):
        self.cfg, self.rng, self.share = cfg, rng, share
        self.on = cfg is not None
        self.every = cfg.every if cfg is not None else 0
        self.points: np.ndarray | None = None

    def refine(self, problem: Problem, params) -> None:
        """Add this refinement's points, scored by ``problem``'s residual with ``params`` (host arrays)."""
        c, geo, eq = self.cfg, problem.geometry, problem.equation
        assert c is not None, "refinement is off"
        have = 0 if self.points is None else len(self.points)
        add = min(self.share(c.add), self.share(c.max_points) - have)  # this process's share
        if add <= 0:
            return
        cand = geo.interior(c.candidates, self.rng, "uniform")
        dtype = jax.tree_util.tree_leaves(params)[0].dtype
        score = np.asarray(problem.residual_score(params, jax.numpy.asarray(eq.to_nondim(cand), dtype)))
        best = cand[np.argsort(-score)[:add]]
        self.points = best if self.points is None else np.concatenate([self.points, best])
