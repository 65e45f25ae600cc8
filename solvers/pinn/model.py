"""The network of a PINN case: an MLP or a modified MLP, optionally behind a random Fourier embedding.

``build(cfg, n_in, n_out, dtype, embedded) -> (init(key) -> params, apply(params, x) -> y)``; parameters are a
plain pytree ``{"net": ..., ["fourier": {"B": ...}]}`` (the plain MLP keeps its historical bare list). The
embedding takes the inputs ``embedded`` (indices; default: all) and the others go on beside its features
(``model.fourier.inputs``: e.g. the space embedded and the time not, whose features of a random frequency would
make the fields oscillate in time).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from sciml.nn import fourier, mlp, modified_mlp

NETS = {"mlp": mlp, "modified_mlp": modified_mlp}


def build(cfg, n_in: int, n_out: int, dtype, embedded: list[int] | None = None):
    net = NETS[cfg.type]
    emb = cfg.fourier
    embedded = list(range(n_in)) if embedded is None else embedded
    passed = [i for i in range(n_in) if i not in embedded]  # beside the features
    width_in = 2 * emb.features + len(passed) if emb is not None else n_in
    sizes = [width_in, *cfg.hidden, n_out]

    if cfg.type == "mlp" and emb is None:  # parameters as before: a list of layers
        return (lambda key: mlp.init(key, sizes, dtype)), (lambda p, x: mlp.apply(p, x, cfg.activation))

    def init(key):
        k_net, k_emb = jax.random.split(key)
        params = {"net": net.init(k_net, sizes, dtype)}
        if emb is not None:
            params["fourier"] = fourier.init(k_emb, len(embedded), emb.features, emb.scale, dtype)
        return params

    def embed(params, x):
        if not passed:
            return fourier.apply(params, x)
        return jnp.concatenate([fourier.apply(params, x[..., embedded]), x[..., passed]], axis=-1)

    def apply(params, x):
        h = embed(params["fourier"], x) if "fourier" in params else x
        return net.apply(params["net"], h, cfg.activation)

    return init, apply
