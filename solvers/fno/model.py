"""From a case to the operator: ``init(key) -> params`` and ``predict(params, stats, inputs) -> outputs``.

Inputs and outputs are in the dataset's layout and units, ``(batch, s..., channels)``; for vorticity the
channels are time steps (``t_in`` given, ``t_out`` predicted). Three ways to use the FNO:

- ``fno``: one pass, input channels -> output channels (Darcy, Burgers);
- ``recurrent``: the FNO-2D maps the last ``t_in`` steps to the next ``step`` ones; predictions are fed
  back until ``t_out`` steps are made (``jax.lax.scan``; training backpropagates through the rollout);
- ``space_time``: the FNO-3D on (x, y, t): the ``t_in`` given steps, repeated along a time axis of
  ``t_out`` points, map to the ``t_out`` predicted steps in one pass.

Padding (``model.padding``, for non-periodic problems) is counted in points of the training grid and scaled
with the resolution so that the Fourier layers see the same period on every grid (:func:`scaled_padding`).

``stats`` (per-channel mean and std of the training inputs and outputs) normalise inputs and
de-normalise predictions when ``model.normalize`` is set; they are part of the checkpointed state.

The dtype policy (:class:`sciml.compile.Policy`) sets the parameters' dtype and the network's compute
dtype: with ``bfloat16`` the parameters stay float32, the network runs in bfloat16 (its FFTs in float32)
and predictions come back in float32. With a ``channels`` mesh axis the Fourier layers' weights are split
along their output channels (:func:`partition`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

from sciml.compile import Policy
from sciml.nn import fno, fno_field
from sciml.parallel import CHANNEL_AXIS

from .config import FnoCase


def scaled_padding(p: int, n0: int, n: int, kind: str) -> int:
    """Padding for an axis of ``n`` points that keeps the period the FFT sees on the training axis.

    The padded axis of ``n + p`` points is one period of the discrete Fourier transform: ``(n + p) h`` with
    ``h = 1/(n - 1)`` on a closed grid (both ends of [0, 1] included) and ``1/n`` on a periodic one. Keeping
    ``p h`` fixed instead would stretch that period (by 0.85% from 85 to 421 points with ``p = 9``), which
    shifts the phase of the retained modes and costs accuracy in zero-shot super-resolution. Where the
    period cannot be met exactly the nearest padding is taken (``p = 11`` on 85 points is exact on 141, 211
    and 421 points: the period is 8/7 on each), rounding halves up, in integers so that ``n`` may be a
    symbolic size (an export for every grid; there the export's constraints keep the padding ≥ 0).
    """
    pad = _unclamped_padding(p, n0, n, kind)
    return max(pad, 0) if isinstance(pad, int) else pad


def _unclamped_padding(p: int, n0: int, n, kind: str):
    """:func:`scaled_padding` before it is clamped at 0 (negative where a coarse closed grid cannot keep the
    period)."""
    if kind == "closed":
        return (2 * (n0 + p) * (n - 1) + (n0 - 1)) // (2 * (n0 - 1)) - n
    return 0 if p == 0 else (2 * p * n + n0) // (2 * n0)


def smallest_grid(cfg: FnoCase) -> list[int]:
    """Per spatial axis, the fewest points from which every finer grid is one the model can take: ``2 m``
    for ``m`` kept modes (no Nyquist mode kept, as the truncated DFT of a symbolic grid needs), and the
    scaled padding (:func:`scaled_padding`) not negative."""
    gen = cfg.source
    out = []
    for m, p, n0 in list(zip(cfg.model.modes, cfg.padding(), cfg.model_shape()))[:gen.dims]:
        n = max(2 * m, 2)
        short = [k for k in range(n, n0) if _unclamped_padding(p, n0, k, gen.grid) < 0]
        out.append(max(short) + 1 if short else n)
    return out


@dataclass(frozen=True)
class Operator:
    init: Callable  # key -> params
    predict: Callable  # (params, stats, inputs) -> outputs, dataset layout and units; a recurrent model's takes
    # steps=k too (training.window: a rollout of k steps, not data.t_out)
    stats: Callable  # (x_mean, x_std, y_mean, y_std) numpy -> stats pytree
    field: Callable  # (params, stats, inputs) -> (points (..., d) -> outputs (..., batch, c)): model.type fno (its
    # decoded series) or deeponet (its trunk); the case's check keeps the other types from every use of it


def scalings(dtype, normalize: bool = True, pooled: bool = False) -> Callable:
    """``stats(x_mean, x_std, y_mean, y_std)``: the per-channel scalings (numpy moments of the training set) as the
    state holds them; ``normalize`` False: none (mean 0, std 1); ``pooled``: one mean and std for inputs and
    outputs together (a recurrent model's field is fed back into itself). A std of 0 scales by 1."""

    def stats(mx, sx, my, sy):
        if pooled:
            mean = np.concatenate([mx, my]).mean()
            std = np.sqrt(np.concatenate([sx ** 2 + mx ** 2, sy ** 2 + my ** 2]).mean() - mean ** 2)
            mx, my, sx, sy = (np.full_like(a, v) for a, v in ((mx, mean), (my, mean), (sx, std), (sy, std)))
        if not normalize:
            mx, my, sx, sy = np.zeros_like(mx), np.zeros_like(my), np.ones_like(sx), np.ones_like(sy)
        sx, sy = (np.where(s > 0, s, 1.0) for s in (sx, sy))
        return {k: jnp.asarray(v, dtype) for k, v in (("x_mean", mx), ("x_std", sx), ("y_mean", my), ("y_std", sy))}

    return stats


def build(cfg: FnoCase, in_channels: int, out_channels: int) -> Operator:
    gen = cfg.source
    m = cfg.model
    policy = Policy.of(cfg.dtype)
    dtype, compute = policy.param_dtype, policy.compute_dtype
    kinds = [gen.grid] * gen.dims + (["closed"] if m.type == "space_time" else [])
    opts: dict[str, Any] = {"grid": kinds if m.grid else None, "activation": m.activation, "spectral": m.spectral,
                            "pad_fill": m.pad_fill}
    train_shape = cfg.model_shape()
    power = gen.edge_power(cfg.data.params)  # of the edge factor (model.vanish_on_edges)

    def padding(shape):
        return tuple(scaled_padding(p, n0, n, kind) for p, n, n0, kind in zip(cfg.padding(), shape, train_shape, kinds))
    c_in, c_out = {"fno": (in_channels, out_channels), "recurrent": (cfg.data.t_in, m.step),
                   "space_time": (cfg.data.t_in, 1)}[m.type]

    def init(key):
        return fno.init(key, c_in, c_out, m.modes, m.width, m.layers, lifting=m.lifting, projection=m.projection,
                        grid=m.grid, dtype=dtype)

    stats = scalings(dtype, m.normalize, pooled=m.type == "recurrent")

    def net(params, x):
        return fno.apply(params, x, padding=padding(x.shape[1:-1]), **opts)

    def predict(params, st, x, steps: int | None = None):
        grid_factor = edge_factor(fno.grid_channels(x.shape[1:-1], kinds, dtype), power)[..., None] \
            if m.vanish_on_edges else 1.0
        x = ((x - st["x_mean"]) / st["x_std"]).astype(compute)
        params = policy.cast(params)
        if m.type == "fno":
            z = net(params, x)
        elif m.type == "space_time":
            t = cfg.data.t_out
            z = net(params, jnp.broadcast_to(x[..., None, :], x.shape[:-1] + (t, x.shape[-1])))[..., 0]
        else:
            # each call recomputed in the backward pass from its window (jax.checkpoint) rather than its
            # activations stored per call: 1.8x faster gradients of the 40-call rollout on a CPU (measured by
            # sciml bench fno-step --case ns_fno), and the memory of one call
            @jax.checkpoint
            def body(window, _):
                out = net(params, window)
                return jnp.concatenate([window[..., m.step:], out], axis=-1), out

            steps = steps or cfg.data.t_out  # fewer in training.window's rollouts
            _, outs = jax.lax.scan(body, x, None, length=steps // m.step)  # (n_calls, B, s.., step)
            z = jnp.moveaxis(outs, 0, -2).reshape(x.shape[:-1] + (steps,))
        n = z.shape[-1]  # a window's first steps (a recurrent model's scalings are one number for all steps)
        return (z.astype(dtype) * st["y_std"][..., :n] + st["y_mean"][..., :n]) * grid_factor

    def field(params, st, x):
        """The output as a function of the coordinates in [0, 1]^d (:func:`sciml.nn.fno_field.decode`)."""
        x = ((x - st["x_mean"]) / st["x_std"]).astype(compute)
        u = fno_field.decode(policy.cast(params), x, padding=padding(x.shape[1:-1]), **opts)

        def post(values, points):
            out = values.astype(dtype) * st["y_std"] + st["y_mean"]
            return out * edge_factor(points, power)[..., None, None] if m.vanish_on_edges else out

        return u.then(post)

    return Operator(init, predict, stats, field)


def edge_factor(points, power: int = 1):
    """``(Π_a 4 x_a (1 - x_a))^power`` at ``points (..., d)``: 0 on the edges of [0, 1]^d, 1 at the centre
    (``model.vanish_on_edges`` multiplies the outputs by it, imposing ``u = 0`` there exactly, and with
    ``power`` 2 also ``∂u/∂n = 0``: the clamped plate's edges)."""
    factor = 1.0
    for a in range(points.shape[-1]):  # a product of the axes (the Taylor engine has no rule for reduce_prod)
        factor = factor * 4 * points[..., a] * (1 - points[..., a])
    return factor ** power if power != 1 else factor


# which axis of a Fourier layer's weights holds its output channels (by the key above the leaf)
_CHANNEL_AXIS_OF = {"spectral": -2, "pointwise": -1}


def partition(path, leaf) -> P:
    """Channel sharding of a state leaf (parameters, or the optimizer's moments of them): the Fourier
    layers' weights along their output channels, everything else replicated."""
    names = [k.key for k in path if isinstance(k, jax.tree_util.DictKey)]
    where = next((_CHANNEL_AXIS_OF[n] for n in reversed(names) if n in _CHANNEL_AXIS_OF), None)
    if where is None or not np.ndim(leaf):
        return P()
    spec: list[str | None] = [None] * np.ndim(leaf)
    spec[where] = CHANNEL_AXIS
    return P(*spec)
