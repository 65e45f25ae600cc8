"""Deep operator networks as plain pytrees: ``params = init(key, ...)``, ``u = apply(params, a, y)``.

Lu, Jin, Pang, Zhang & Karniadakis, *Learning nonlinear operators via DeepONet based on the universal
approximation theorem of operators*, Nature Machine Intelligence 3, 2021. For an input function given by its
values ``a`` at ``m`` fixed sensor points (flattened, ``(batch, m)``) and query points ``y`` (``(n, d)``):

    b = B(a)            (batch, c, p)   branch: an MLP on the sensor values, its last layer linear (after
                                        convolutions on the sensors' grid where ``conv`` asks: a CNN branch)
    t = σ(T(φ(y)))      (n, c, p)       trunk: an MLP on the query coordinates, its last layer activated
    u = Σ_k b_k t_k + β (batch, n, c)   one set of p basis functions per output channel, a bias per channel

(the unstacked DeepONet in its Cartesian-product form: every sample shares the query points, so the trunk
runs once per point, not once per point and sample). ``φ`` is the identity, or with ``harmonics`` K the
features ``cos 2πky_a, sin 2πky_a`` (``k = 1..K``, every axis ``a``), alone (``periodic``: the output is then
exactly periodic on the unit cube, Lu et al. 2022's DeepONet for periodic problems) or beside ``y``.
A CNN branch (``conv``: the channels of each layer) reads the sensor values on their grid, ``grid`` points per
axis (channels last): convolutions of ``kernel`` points per axis at a ``stride``, without padding, each activated,
then the MLP on their flattened outputs, as Lu et al. 2022's DeepONet for the Darcy problem (two of 64 and 128
channels, 5 x 5 at a stride of 2). Weights are Glorot-normal (a convolution's fans: kernel points times channels),
biases zero (:mod:`.mlp`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from . import mlp

if TYPE_CHECKING:  # shapes for the reader and the type checker; jaxtyping is not needed at run time
    from jaxtyping import Array, Float


def features(y: Float[Array, "n d"], harmonics: int = 0, periodic: bool = False) -> Float[Array, "n f"]:
    """The trunk's inputs ``φ(y)``: ``y`` itself, or with ``harmonics`` K its Fourier features
    ``[cos 2πky_a, sin 2πky_a]`` for ``k = 1..K`` (after ``y`` unless ``periodic``)."""
    if not harmonics:
        return y
    z = 2 * jnp.pi * y[..., None] * jnp.arange(1, harmonics + 1, dtype=y.dtype)  # (n, d, K)
    waves = jnp.concatenate([jnp.cos(z), jnp.sin(z)], axis=-1).reshape(*y.shape[:-1], -1)
    return waves if periodic else jnp.concatenate([y, waves], axis=-1)


def feature_count(d: int, harmonics: int = 0, periodic: bool = False) -> int:
    """The width of :func:`features` for ``d`` coordinates."""
    return (0 if harmonics and periodic else d) + 2 * d * harmonics


def conv_shape(grid: Sequence[int], layers: int, kernel: int = 5, stride: int = 2) -> tuple[int, ...]:
    """Points per axis after ``layers`` convolutions of ``kernel`` points at ``stride`` (no padding) of a grid of
    ``grid`` points per axis; an axis of fewer than ``kernel`` points before a layer is refused (ValueError)."""
    shape = tuple(grid)
    for layer in range(layers):
        if min(shape) < kernel:
            raise ValueError(f"convolution {layer + 1} of {kernel} points per axis meets a grid of {shape} points")
        shape = tuple((n - kernel) // stride + 1 for n in shape)
    return shape


def init(key, sensors: int, coords: int, channels: int, basis: int, branch: Sequence[int] = (128, 128),
         trunk: Sequence[int] = (128, 128), dtype=jnp.float32, conv: Sequence[int] = (),
         grid: Sequence[int] = (), kernel: int = 5, stride: int = 2) -> dict:
    """``{"branch", "trunk", "bias"}`` (and ``"conv"``) for ``sensors`` input values (sensor points times input
    channels), ``coords`` trunk inputs (:func:`feature_count`), ``channels`` outputs of ``basis`` terms each, and the
    hidden widths ``branch`` and ``trunk``; ``conv``: the channels of a CNN branch's convolutions on the sensors'
    ``grid`` (points per axis), of ``kernel`` points per axis at ``stride``."""
    kb, kt = jax.random.split(key)
    width = channels * basis
    layers = []
    if conv:
        d = len(grid)
        fans = [sensors // math.prod(grid), *conv]
        for k, c_in, c_out in zip(jax.random.split(jax.random.fold_in(key, 1), len(conv)), fans[:-1], fans[1:]):
            std = jnp.sqrt(2.0 / (kernel ** d * (c_in + c_out))).astype(dtype)
            layers.append({"W": std * jax.random.normal(k, (kernel,) * d + (c_in, c_out), dtype),
                           "b": jnp.zeros((c_out,), dtype)})
        sensors = math.prod(conv_shape(grid, len(conv), kernel, stride)) * conv[-1]
    params = {"branch": mlp.init(kb, [sensors, *branch, width], dtype),
              "trunk": mlp.init(kt, [coords, *trunk, width], dtype),
              "bias": jnp.zeros((channels,), dtype)}
    return {**params, "conv": layers} if conv else params


def branch(params: dict, a: Float[Array, "batch m"], activation: str = "gelu", grid: Sequence[int] = (),
           stride: int = 2) -> Float[Array, "batch c p"]:
    """The branch's coefficients ``(batch, channels, basis)`` of sensor values ``a``; a CNN branch's (``"conv"`` in
    ``params``) reads them as ``(batch, *grid, channels)`` and convolves at ``stride``."""
    h = a
    if "conv" in params:
        d = len(grid)
        h = a.reshape(a.shape[0], *grid, -1)
        spatial = "DHW"[-d:]
        dims = ("N" + spatial + "C", spatial + "IO", "N" + spatial + "C")
        for layer in params["conv"]:
            dtype = jnp.result_type(h, layer["W"])  # promoted as the MLP's products are
            h = mlp.ACTIVATIONS[activation](jax.lax.conv_general_dilated(
                h.astype(dtype), layer["W"].astype(dtype), (stride,) * d, "VALID", dimension_numbers=dims)
                + layer["b"])
        h = h.reshape(a.shape[0], -1)
    out = mlp.apply(params["branch"], h, activation)
    return out.reshape(*a.shape[:-1], params["bias"].shape[0], -1)


def trunk(params: dict, y: Float[Array, "n f"], activation: str = "gelu") -> Float[Array, "n c p"]:
    """The trunk's basis functions ``(n, channels, basis)`` at trunk inputs ``y`` (:func:`features`)."""
    out = mlp.ACTIVATIONS[activation](mlp.apply(params["trunk"], y, activation))
    return out.reshape(*y.shape[:-1], params["bias"].shape[0], -1)


def combine(params: dict, b: Float[Array, "batch c p"], y: Float[Array, "... f"],
            activation: str = "gelu") -> Float[Array, "... batch c"]:
    """``u[..., b, c] = Σ_k b[b, c, k] trunk(y)[..., c, k] + bias[c]`` for the branch's coefficients ``b``
    (:func:`branch`) at trunk inputs ``y`` of any leading shape: a function of ``y`` alone, which the Taylor engine
    differentiates through the trunk (a physics-informed DeepONet, Wang, Wang & Perdikaris, Sci. Adv. 7, 2021)."""
    return jnp.einsum("bck,...ck->...bc", b, trunk(params, y, activation)) + params["bias"]


def apply(params: dict, a: Float[Array, "batch m"], y: Float[Array, "n f"], activation: str = "gelu",
          grid: Sequence[int] = (), stride: int = 2) -> Float[Array, "batch n c"]:
    """``u[b, i, c] = Σ_k branch(a)[b, c, k] trunk(y)[i, c, k] + bias[c]`` (:func:`combine`, batch first)."""
    return jnp.moveaxis(combine(params, branch(params, a, activation, grid, stride), y, activation), -2, 0)

