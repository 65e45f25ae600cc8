"""The modified MLP of Wang, Teng & Perdikaris (SIAM J. Sci. Comput. 43, 2021), as a plain pytree.

Two encoders ``U = σ(x W_u + b_u)`` and ``V = σ(x W_v + b_v)`` of the input are mixed into every hidden
layer::

    H_1 = σ(x W_1 + b_1)
    Z_k = σ(H_k W_{k+1} + b_{k+1}),   H_{k+1} = (1 - Z_k) ⊙ U + Z_k ⊙ V
    y   = H_L W_out + b_out

All hidden layers share one width. Initialisation as in :mod:`sciml.nn.mlp` (Glorot normal, zero biases).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import jax

from . import mlp

if TYPE_CHECKING:  # shapes for the reader and the type checker; jaxtyping is not needed at run time
    from jaxtyping import Array, Float


def init(key, sizes: Sequence[int], dtype=None) -> dict:
    """``sizes = [n_in, width, ..., width, n_out]`` (at least one hidden layer)."""
    if len(sizes) < 3 or len(set(sizes[1:-1])) != 1:
        raise ValueError(f"a modified MLP needs hidden layers of one width, got {list(sizes)}")
    kw = {} if dtype is None else {"dtype": dtype}
    k_u, k_v, k_body = jax.random.split(key, 3)
    n_in, width = sizes[0], sizes[1]
    return {"u": mlp.init(k_u, [n_in, width], **kw)[0], "v": mlp.init(k_v, [n_in, width], **kw)[0],
            "layers": mlp.init(k_body, sizes, **kw)}


def apply(params: dict, x: Float[Array, "*batch n_in"],
          activation: str | Callable = "tanh") -> Float[Array, "*batch n_out"]:
    act = mlp.ACTIVATIONS[activation] if isinstance(activation, str) else activation
    u = act(x @ params["u"]["W"] + params["u"]["b"])
    v = act(x @ params["v"]["W"] + params["v"]["b"])
    layers = params["layers"]
    h = x
    for layer in layers[:-1]:
        z = act(h @ layer["W"] + layer["b"])
        h = (1 - z) * u + z * v
    last = layers[-1]
    return h @ last["W"] + last["b"]
