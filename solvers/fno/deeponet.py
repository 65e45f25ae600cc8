"""``model.type: deeponet``: a DeepONet (:mod:`sciml.nn.deeponet`) as the operator solver's :class:`.model.Operator`.

Inputs and outputs are in the dataset's layout and units, ``(batch, s..., channels)`` on a tensor grid or
``(batch, n_points, channels)`` on a point set (``data.grid`` naming the file's points). The branch reads the
normalised inputs at the sensors, every ``model.sensors``-th point of the training grid along each axis (of a
point set: of its points), all channels, flattened; the trunk reads the coordinates of every output point (on a
tensor grid the unit cube's, as the dataset stores them; a point set's mapped onto [0, 1]^d by the training
points' bounding box), through harmonics where ``model.harmonics`` asks. So the output is a function of the
coordinates: on another test grid the network takes that grid's inputs at the same sensors (:func:`sensor_weights`:
linear interpolation along each axis, the values themselves where the grid holds the sensors, as a closed grid of
``S`` points holds those of ``s`` when ``(S - 1) / (s - 1)`` is an integer) and answers at all of its points.
``model.conv`` makes the branch a CNN on the sensors' grid (:func:`sciml.nn.deeponet.branch`).
``model.vanish_on_edges`` multiplies the outputs by the FNO's edge factor (:func:`.model.edge_factor`), ``stats``
are the FNO's scalings (:func:`.model.scalings`).

The output is a function of the coordinates (``Operator.field``: the branch's coefficients of the inputs times the
trunk at any points), so the physics terms (:mod:`.physics`, ``training.terms``), the derived fields (the plate's
moments) and the error estimate read it as they read an FNO's decoded field: its derivatives come from the Taylor
engine through the trunk alone, exactly (the physics-informed DeepONet of Wang, Wang & Perdikaris, Sci. Adv. 7,
eabi8605, 2021). ``predict`` is that function at the grid's points. ``evaluation.decoded`` stays the FNO's (a
DeepONet answers on any grid by its trunk already).
"""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from sciml.compile import Policy
from sciml.nn import deeponet as net
from sciml.nn import fno

from .config import FnoCase
from .generators import coordinates
from .model import Operator, edge_factor, scalings


def sensor_shape(shape: tuple[int, ...], stride: int) -> tuple[int, ...]:
    """Sensors per axis of a training grid of ``shape`` points read every ``stride``-th point."""
    return tuple(len(range(0, n, stride)) for n in shape)


def sensor_weights(n: int, train: int, stride: int, kind: str) -> np.ndarray:
    """``(sensors, n)``: the values at the sensors of one axis (every ``stride``-th point of the training axis of
    ``train`` points) from those of an axis of ``n`` points of the same kind, by linear interpolation (periodic: round
    the period); a sensor on one of the ``n`` points takes its value alone."""
    pos = coordinates(train, 1, kind)[::stride, 0] * (n - 1 if kind == "closed" else n)
    pos = np.where(np.abs(pos - np.round(pos)) < 1e-9, np.round(pos), pos)
    low = np.minimum(np.floor(pos).astype(int), n - 1)
    frac = pos - low
    high = (low + 1) % n if kind == "periodic" else np.minimum(low + 1, n - 1)
    w = np.zeros((len(pos), n))
    np.add.at(w, (np.arange(len(pos)), low), 1 - frac)
    np.add.at(w, (np.arange(len(pos)), high), frac)
    return w


def build(cfg: FnoCase, in_channels: int, out_channels: int, grid: np.ndarray | None) -> Operator:
    """The DeepONet of ``cfg.model`` for inputs of ``in_channels`` and outputs of ``out_channels`` channels;
    ``grid``: the training split's coordinates, ``(s..., d)`` or a point set's ``(n_points, d)``."""
    assert grid is not None, "a DeepONet's trunk reads the training grid's points"
    m, kind = cfg.model, cfg.source.grid
    policy = Policy.of(cfg.dtype)
    dtype, compute = policy.param_dtype, policy.compute_dtype
    train_shape, d = tuple(grid.shape[:-1]), grid.shape[-1]
    points = kind == "points"
    flat = grid.reshape(-1, d).astype(np.float64)
    low, span = (flat.min(0), np.where(np.ptp(flat, 0) > 0, np.ptp(flat, 0), 1.0)) if points else (0.0, 1.0)
    periodic = kind == "periodic"
    grid_sensors = () if points else sensor_shape(train_shape, m.sensors)  # a CNN branch's grid (model.conv)
    sensors = math.prod(sensor_shape(train_shape, m.sensors)) * in_channels
    power = cfg.source.edge_power(cfg.data.params)

    def init(key):
        return net.init(key, sensors, net.feature_count(d, m.harmonics, periodic), out_channels, m.basis,
                        m.branch, m.trunk, dtype, m.conv, grid_sensors, m.conv_kernel, m.conv_stride)

    def output_points(shape):
        """The output points ``(n, d)`` of inputs on a grid of ``shape``: the point set's, or the tensor grid's."""
        if points:
            assert shape == train_shape, "a point set is one grid (DataConfig.check)"
            return jnp.asarray(flat, dtype)
        return fno.grid_channels(shape, kind, dtype).reshape(-1, d)

    def at_sensors(x):
        """``(batch, sensors * channels)``: the inputs at the training grid's sensors, from any grid's."""
        if points:
            return x[:, ::m.sensors].reshape(x.shape[0], -1)
        for a, (n, n0) in enumerate(zip(x.shape[1:-1], train_shape)):
            w = jnp.asarray(sensor_weights(n, n0, m.sensors, kind), x.dtype)
            x = jnp.moveaxis(jnp.tensordot(x, w, axes=([1 + a], [1])), -1, 1 + a)
        return x.reshape(x.shape[0], -1)

    def field(params, st, x):
        """The output as a function of the coordinates (the unit cube's; a point set's, as its points are): the
        branch's coefficients of the inputs ``x`` once, then ``points (..., d) -> (..., batch, channels)`` through
        the trunk, which the physics terms differentiate with the Taylor engine (:mod:`.physics`)."""
        p = policy.cast(params)
        b = net.branch(p, at_sensors((x - st["x_mean"]) / st["x_std"]).astype(compute), m.activation,
                       grid_sensors, m.conv_stride)

        def at(y):
            phi = net.features((y - jnp.asarray(low, y.dtype)) / jnp.asarray(span, y.dtype), m.harmonics, periodic)
            out = net.combine(p, b, phi.astype(compute), m.activation).astype(dtype) * st["y_std"] + st["y_mean"]
            return out * edge_factor(y, power)[..., None, None] if m.vanish_on_edges else out

        return at

    def predict(params, st, x):
        """The :func:`field` at the grid's (or the point set's) points, in the dataset's layout."""
        out = field(params, st, x)(output_points(x.shape[1:-1]))  # (n, batch, channels)
        return jnp.moveaxis(out, 1, 0).reshape(x.shape[:-1] + (out_channels,))

    return Operator(init, predict, scalings(dtype, m.normalize), field)
