"""Loss weights balanced by gradient norms ("learning-rate annealing", Wang, Teng & Perdikaris,
SIAM J. Sci. Comput. 43, 2021; in the form of Wang et al., "An expert's guide to training PINNs", 2023).

For loss terms ``L_i`` with parameter gradients ``g_i``, the new weights are

.. math:: \\hat\\lambda_i = \\frac{\\tfrac{1}{n}\\sum_j \\lVert g_j \\rVert}{\\lVert g_i \\rVert},
          \\qquad \\lambda_i \\leftarrow \\alpha\\lambda_i + (1 - \\alpha)\\hat\\lambda_i,

so every weighted term pulls on the parameters equally hard; weights start at 1 and multiply the fixed
weights of the case file. The gradients are of the unweighted terms (one reverse pass per term).
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp


def _norm(tree) -> jnp.ndarray:
    return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in jax.tree_util.tree_leaves(tree)))


def grad_norm(term_losses: Callable, alpha: float) -> Callable:
    """``(params, batch, key, weights) -> weights``, for ``term_losses(params, batch, key) -> {term: loss}``."""

    def update(params, batch, key, weights):
        grads = jax.jacrev(lambda p: term_losses(p, batch, key))(params)
        norms = {t: _norm(g) for t, g in grads.items()}
        mean = sum(norms.values()) / len(norms)
        floor = 1e-12 * mean + 1e-30
        return {t: alpha * weights[t] + (1 - alpha) * mean / jnp.maximum(norms[t], floor) for t in weights}

    return update


def initial_weights(terms, dtype) -> dict:
    return {t: jnp.ones((), dtype) for t in terms}
