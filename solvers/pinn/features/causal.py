r"""Causal weights (``loss.causal``, the causal training of Wang, Sankaran & Perdikaris): the interior terms of
an unsteady case weighted by time slab.

The time window is cut into ``chunks`` slabs with mean square residuals :math:`L_i`; slab :math:`i` weighs
:math:`\exp(-\epsilon \sum_{j<i} L_j)` (no gradient through the weight). Given weights, the slabs take those
instead: the quasi-Newton phase holds the weights of a chunk's first step fixed over the chunk
(:meth:`sciml.solvers.pinn.problem.Problem.causal_weights`), so that its line search sees one objective and its
gradient.
"""
from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from ..config import CausalConfig


@dataclass(frozen=True)
class Causal:
    """The causal weighting of ``terms`` (the interior residuals) over the nondimensional time ``window``."""

    config: CausalConfig
    window: tuple[float, float]
    terms: tuple[str, ...]

    @classmethod
    def of(cls, c: CausalConfig, equation, geometry, terms) -> Causal:
        """For the space-time ``geometry``'s time interval, nondimensional by ``equation``."""
        t0, t1 = geometry.time
        corners = np.zeros((2, geometry.dim))
        corners[:, -1] = t0, t1
        th0, th1 = (float(v) for v in equation.to_nondim(corners)[:, -1])
        return cls(c, (th0, th1), tuple(terms))

    def per_slab(self, res: dict, x) -> dict:
        """``{term: mean square residual of each slab}`` of the per-point residuals ``res`` at points ``x``."""
        (th0, th1), chunks = self.window, self.config.chunks
        idx = jnp.clip(jnp.floor((x[:, -1] - th0) / (th1 - th0) * chunks), 0, chunks - 1).astype(jnp.int32)
        count = jnp.maximum(jax.ops.segment_sum(jnp.ones_like(x[:, -1]), idx, chunks), 1.0)
        return {t: jax.ops.segment_sum(jnp.square(res[t]), idx, chunks) / count for t in self.terms}

    def of_slabs(self, slabs: dict):
        """The slabs' weights from their losses (the earlier slabs' sum; no gradient)."""
        total = sum(slabs.values())
        return jax.lax.stop_gradient(jnp.exp(-self.config.epsilon * (jnp.cumsum(total) - total)))

    def slab_weights(self, res: dict, x):
        """The slabs' weights at the residuals ``res``."""
        return self.of_slabs(self.per_slab(res, x))

    def __call__(self, res: dict, x, weights=None) -> dict:
        """``{term: causally weighted loss}``, by ``weights`` (the slabs') when given, else by ``res``'s own."""
        slabs = self.per_slab(res, x)
        w = self.of_slabs(slabs) if weights is None else weights
        return {t: jnp.mean(w * slabs[t]) for t in self.terms}
