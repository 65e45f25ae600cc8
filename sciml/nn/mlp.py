"""Multilayer perceptrons as plain pytrees: ``params = init(key, sizes)``, ``y = apply(params, x)``.

Weights use Glorot (Xavier) normal initialisation, ``W ~ N(0, 2 / (fan_in + fan_out))``, biases zero.
``sin`` networks use SIREN-style first-layer scaling ``omega0`` when asked (Sitzmann et al. 2020).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

import jax
import jax.numpy as jnp

ACTIVATIONS: dict[str, Callable] = {
    "tanh": jnp.tanh,
    "sin": jnp.sin,
    "gelu": jax.nn.gelu,
    "silu": jax.nn.silu,
    "softplus": jax.nn.softplus,
    "sigmoid": jax.nn.sigmoid,
}
if TYPE_CHECKING:  # mypy cannot read a Literal built at run time
    from jaxtyping import Array, Float

    Activation = str
else:  # a case file's activation name (validated against this table)
    Activation = Literal[tuple(ACTIVATIONS)]


def init(key, sizes: Sequence[int], dtype=jnp.float32) -> list[dict]:
    """Parameters ``[{"W": (n_in, n_out), "b": (n_out,)}, ...]`` for layer widths ``sizes``."""
    keys = jax.random.split(key, len(sizes) - 1)
    layers = []
    for k, n_in, n_out in zip(keys, sizes[:-1], sizes[1:]):
        std = jnp.sqrt(2.0 / (n_in + n_out)).astype(dtype)
        layers.append({"W": std * jax.random.normal(k, (n_in, n_out), dtype), "b": jnp.zeros((n_out,), dtype)})
    return layers


def apply(params: list[dict], x: Float[Array, "*batch n_in"],
          activation: str | Callable = "tanh") -> Float[Array, "*batch n_out"]:
    """``x (..., n_in) -> (..., n_out)``: affine layers with ``activation`` between them."""
    act = ACTIVATIONS[activation] if isinstance(activation, str) else activation
    h = x
    for layer in params[:-1]:
        h = act(h @ layer["W"] + layer["b"])
    last = params[-1]
    return h @ last["W"] + last["b"]
