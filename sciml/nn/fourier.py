"""Random Fourier feature embedding (Tancik et al. 2020; for PINNs, Wang, Wang & Perdikaris 2021).

``γ(x) = [cos(2π x B), sin(2π x B)]`` with ``B ~ N(0, σ²)`` of shape ``(d, m)``: ``2m`` features whose
frequencies are spread by the scale ``σ``, which lets a network fit high frequencies a plain MLP learns
slowly (spectral bias). ``B`` is drawn once and kept fixed: :func:`apply` stops its gradient, so optimisers
leave it unchanged.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

if TYPE_CHECKING:  # shapes for the reader and the type checker; jaxtyping is not needed at run time
    from jaxtyping import Array, Float


def init(key, in_dim: int, features: int, scale: float = 1.0, dtype=jnp.float32) -> dict:
    """``{"B": (in_dim, features)}`` with entries ``N(0, scale²)``."""
    return {"B": scale * jax.random.normal(key, (in_dim, features), dtype)}


def apply(params: dict, x: Float[Array, "*batch d"]) -> Float[Array, "*batch two_features"]:
    """``x (..., d) -> (..., 2 * features)``."""
    z = 2 * jnp.pi * x @ jax.lax.stop_gradient(params["B"])
    return jnp.concatenate([jnp.cos(z), jnp.sin(z)], axis=-1)
