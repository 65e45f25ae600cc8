"""The network of a PINN case: an MLP or a modified MLP, optionally behind a random Fourier embedding.

``build(cfg, n_in, n_out, dtype, embedded) -> (init(key) -> params, apply(params, x) -> y)``; parameters are a
plain pytree ``{"net": ..., ["fourier": {"B": ...}]}`` (the plain MLP keeps its historical bare list). The
embedding takes the inputs ``embedded`` (indices; default: all) and the others go on beside its features
(``model.fourier.inputs``: e.g. the space embedded and the time not, whose features of a random frequency would
make the fields oscillate in time).

:func:`shift_input` rewrites parameters so that the network reads one raw input on a new affine scale (a time
window's network continued from the last one's, :mod:`.features.windows`): the layers that read the inputs take the
change.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from sciml.nn import fourier, mlp, modified_mlp

NETS = {"mlp": mlp, "modified_mlp": modified_mlp}


def _passed(embedded: list[int], n: int) -> list[int]:
    """The inputs among the first ``n`` that go on beside the Fourier features (after them, in this order)."""
    return [i for i in range(n) if i not in embedded]


def _bare(cfg) -> bool:
    """The plain MLP without an embedding: its parameters as before, a bare list of layers."""
    return cfg.type == "mlp" and cfg.fourier is None


def build(cfg, n_in: int, n_out: int, dtype, embedded: list[int] | None = None):
    net = NETS[cfg.type]
    emb = cfg.fourier
    embedded = list(range(n_in)) if embedded is None else embedded
    passed = _passed(embedded, n_in)
    width_in = 2 * emb.features + len(passed) if emb is not None else n_in
    sizes = [width_in, *cfg.hidden, n_out]

    if _bare(cfg):
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


def _rescaled(layer: dict, i: int, alpha, beta) -> dict:
    """A dense layer ``x W + b`` reading ``alpha x'_i + beta`` where it read ``x_i``."""
    w = jnp.asarray(layer["W"])
    return {**layer, "W": w.at[i].multiply(alpha), "b": layer["b"] + beta * w[i]}


# the layers of each network that read its inputs, rewritten by f
READS_INPUTS = {
    "mlp": lambda net, f: [f(net[0]), *net[1:]],
    "modified_mlp": lambda net, f: {**net, "u": f(net["u"]), "v": f(net["v"]),
                                    "layers": [f(net["layers"][0]), *net["layers"][1:]]},
}


def shift_input(cfg, params, i: int, alpha: float, beta: float, embedded: list[int] | None = None):
    """``params`` of :func:`build`'s network (``cfg``, the same ``embedded``) such that, fed ``x'``, it gives
    what ``params`` gave at ``x`` with ``x_i = alpha x'_i + beta``: exact, input ``i`` entering affine layers
    only. None when input ``i`` goes through the Fourier embedding (a shift there is no affine map of its
    features)."""
    emb = cfg.fourier
    if emb is None:
        column = i
    elif embedded is None or i in embedded:
        return None
    else:  # after the features, among the inputs passed on
        column = 2 * emb.features + len(_passed(embedded, i))
    rewrite = lambda net: READS_INPUTS[cfg.type](net, lambda layer: _rescaled(layer, column, alpha, beta))
    if _bare(cfg):
        return rewrite(params)
    return {**params, "net": rewrite(params["net"])}
