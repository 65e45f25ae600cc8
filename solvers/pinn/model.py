"""The network of a PINN case: an MLP or a modified MLP, optionally behind a random Fourier embedding.

``build(cfg, n_in, n_out, dtype) -> (init(key) -> params, apply(params, x) -> y)``; parameters are a plain
pytree ``{"net": ..., ["fourier": {"B": ...}]}`` (the plain MLP keeps its historical bare list).
"""
from __future__ import annotations

import jax

from sciml.nn import fourier, mlp, modified_mlp

NETS = {"mlp": mlp, "modified_mlp": modified_mlp}


def build(cfg, n_in: int, n_out: int, dtype):
    net = NETS[cfg.type]
    emb = cfg.fourier
    width_in = 2 * emb.features if emb is not None else n_in
    sizes = [width_in, *cfg.hidden, n_out]

    if cfg.type == "mlp" and emb is None:  # parameters as before: a list of layers
        return (lambda key: mlp.init(key, sizes, dtype)), (lambda p, x: mlp.apply(p, x, cfg.activation))

    def init(key):
        k_net, k_emb = jax.random.split(key)
        params = {"net": net.init(k_net, sizes, dtype)}
        if emb is not None:
            params["fourier"] = fourier.init(k_emb, n_in, emb.features, emb.scale, dtype)
        return params

    def apply(params, x):
        h = fourier.apply(params["fourier"], x) if "fourier" in params else x
        return net.apply(params["net"], h, cfg.activation)

    return init, apply
