"""A dataset of your own: a file's samples copied into sciml's dataset layout (:mod:`.data`), on each grid.

``data.file`` is an HDF5 or MATLAB file (v5, or v7.3 whose arrays are read with their axes reversed back:
:mod:`sciml.io.datafile`); ``data.inputs`` and ``data.outputs`` name its arrays, each ``(samples, grid...)`` or
``(samples, grid..., channels)`` with as many grid axes as the model has modes, several arrays side by side as
channels. The first ``n_train`` samples train and the next ``n_test`` test (or the first ``n_test`` of
``data.test_file``). The file's grid of ``S`` points per axis (``data.grid``: closed, both ends of [0, 1], or
periodic) is subsampled to ``data.resolution`` and to each ``super_resolution``, as the FNO paper takes its
85-point Darcy grid from the 421-point one: ``(S - 1) / (s - 1)`` (closed) or ``S / s`` (periodic) must be an
integer. Every mismatch is one :class:`~sciml.errors.ConfigError` line naming the key; a missing file's names
the command that makes it where the case gives one (``data.made_by``, never run here). The dataset at
``data.path`` then trains, tests, exports and predicts as a generator's does.

A point set (``data.grid`` naming the file's array of points, ``(n_points, d)``: an unstructured mesh's nodes)
holds arrays ``(samples, n_points)`` or ``(samples, n_points, channels)``, their values at those points; it is one
grid (``data.resolution`` is ``n_points``, nothing is subsampled), the dataset's ``grid`` its points, and a
``test_file`` has the same points. Only ``model.type: deeponet`` trains on it (:mod:`.deeponet`).
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable

import numpy as np

from sciml.errors import ConfigError
from sciml.io import datafile

from .config import FnoCase
from .generators import factor, subsample


def settings(cfg) -> dict:
    """What shapes a dataset from a file (``cfg``: the data section): a dataset made with others is not
    reused. The file's content is not among them: ``sciml datagen --force`` copies a changed file again."""
    return {"file": cfg.file, "inputs": cfg.keys[0], "outputs": cfg.keys[1], "grid": cfg.grid,
            "test_file": cfg.test_file, "n_train": cfg.n_train, "n_test": cfg.n_test, "resolutions": cfg.resolutions}


def channels(path: str, held: dict[str, np.ndarray], keys: list[str], key: str, dims: int, rows: slice) -> np.ndarray:
    """The arrays ``keys`` of file ``path`` (``held``: its arrays as read; case key ``key``) as ``(samples, S,
    ..., S, channels)``: each ``(N, S...)`` gains a channel axis, each ``(N, S..., c)`` keeps its; rows ``rows``;
    side by side."""
    out = []
    for k in keys:
        a = held[k]
        grid = a.shape[1:1 + dims]
        if a.ndim not in (1 + dims, 2 + dims) or len(set(grid)) != 1:
            raise ConfigError(f"{path}: {k} has shape {a.shape}; expected (samples, {', '.join(['S'] * dims)}) or "
                              f"(samples, {', '.join(['S'] * dims)}, channels): {dims} grid axes of one size, as "
                              f"model.modes has {dims} numbers", key=f"data.{key}")
        out.append(a[rows] if a.ndim == 2 + dims else a[rows][..., None])
    shapes = {k: a.shape[:-1] for k, a in zip(keys, out)}
    if len(set(shapes.values())) > 1:
        raise ConfigError(f"{path}: the arrays' samples and grids differ: {shapes}", key=f"data.{key}")
    return np.concatenate(out, axis=-1)


def _samples(cfg: FnoCase, split: str, read: Callable[[str], dict]) -> tuple[str, np.ndarray, np.ndarray]:
    """``(file, inputs, outputs)`` of ``split`` ("train" or "test"), each ``(n, S..., c)`` (a point set's ``(n,
    n_points, c)``), checked; ``read``: a file's arrays of the case's keys."""
    d, dims = cfg.data, cfg.source.dims
    path, first, n = ((d.file, 0, d.n_train) if split == "train" else
                      (d.test_file, 0, d.n_test) if d.test_file else (d.file, d.n_train, d.n_test))
    assert path is not None, "DataConfig.check: a dataset from a file names it"
    present(path, d.made_by, "data.test_file" if split == "test" and d.test_file else "data.file")
    arrays = read(path)
    held = len(arrays[d.keys[0][0]])
    if held < first + n:
        asked = f"n_test = {n}" if d.test_file and split == "test" else f"n_train + n_test = {d.n_train + d.n_test}"
        raise ConfigError(f"{path} holds {held} samples; the case asks for {asked}",
                          key="data.n_test" if split == "test" else "data.n_train")
    rows = slice(first, first + n)
    x, y = (channels(path, arrays, keys, key, dims, rows) for keys, key in zip(d.keys, ("inputs", "outputs")))
    if x.shape[:-1] != y.shape[:-1]:
        raise ConfigError(f"{path}: inputs {x.shape[:-1]} and outputs {y.shape[:-1]} differ in samples or grid",
                          key="data.outputs")
    for key, a in (("inputs", x), ("outputs", y)):
        bad = ~np.isfinite(a.reshape(len(a), -1)).all(axis=1)
        if bad.any():
            raise ConfigError(f"{path}: sample {first + int(np.argmax(bad))} of the {key} holds NaN or inf",
                              key=f"data.{key}")
    return path, x, y


def present(path: str, made_by: str | None, key: str) -> None:
    """Refuse a missing dataset file ``path`` (case key ``key``) in one line that names the command making it,
    ``data.made_by``, where the case gives one."""
    if not os.path.isfile(path):
        how = f"; make it with `{made_by}` (data.made_by)" if made_by else ""
        raise ConfigError(f"{path} does not exist{how}", key=key)


def strides(cfg: FnoCase, S: int, path: str) -> dict[int, int]:
    """Each grid's stride from the file's grid of ``S`` points (:func:`.generators.factor`)."""
    d, out = cfg.data, {}
    keys = [("resolution", d.resolution)] + [(f"super_resolution[{i}]", r) for i, r in enumerate(d.super_resolution)]
    for key, r in keys:
        stride = factor(S, r, d.grid)
        if stride is None:
            rule = "(S - 1) / (s - 1)" if d.grid == "closed" else "S / s"
            raise ConfigError(f"a {d.grid} grid of {r} points is not a subsample of {path}'s grid of S = {S} points; "
                              f"{rule} must be an integer", key=f"data.{key}")
        out[r] = stride
    return out


def points(path: str, held: dict[str, np.ndarray], key: str, n: int) -> np.ndarray:
    """The point set ``held[key]`` of file ``path``, ``(n, d)`` finite coordinates of the arrays' ``n`` points."""
    p = held[key]
    if p.ndim != 2 or p.shape[0] != n or not 1 <= p.shape[1] <= 3:
        raise ConfigError(f"{path}: {key} has shape {p.shape}; the points of arrays of {n} values per sample are "
                          f"({n}, d), d = 1, 2 or 3", key="data.grid")
    if not np.isfinite(p).all():
        raise ConfigError(f"{path}: {key} holds NaN or inf", key="data.grid")
    return p


def _point_set(cfg: FnoCase, read: Callable[[str], dict], sources: list[tuple[str, int]]) -> np.ndarray:
    """The point set of ``data.grid``, the same in each ``(file, points)`` of ``sources`` (training, test), with
    ``data.resolution`` points."""
    d = cfg.data
    assert d.points is not None, "a point set's"
    found = [points(path, read(path), d.points, n) for path, n in sources]
    if any(p.shape != found[0].shape or not np.array_equal(p, found[0]) for p in found[1:]):
        raise ConfigError(f"{sources[1][0]}: its points {d.points} are not those of {sources[0][0]}",
                          key="data.test_file")
    if len(found[0]) != d.resolution:
        raise ConfigError(f"{sources[0][0]} holds {len(found[0])} points ({d.points}); a point set is one grid: "
                          f"set data.resolution to {len(found[0])}", key="data.resolution")
    return found[0]


def splits(cfg: FnoCase) -> tuple[str, list[tuple[str, int, np.ndarray, np.ndarray]], np.ndarray | None]:
    """``(the training file, [(group, grid, inputs, outputs)], points)``: the training split on
    ``data.resolution``, the test split on each test grid, subsampled from the file's grid, checked (:mod:`.data`
    writes them); ``points``: a point set's coordinates ``(n_points, d)`` (None on a grid)."""
    d, dims = cfg.data, cfg.source.dims
    wanted = {**{k: "data.inputs" for k in d.keys[0]}, **{k: "data.outputs" for k in d.keys[1]},
              **({d.points: "data.grid"} if d.points else {})}
    read = functools.cache(lambda path: datafile.arrays(path, wanted))  # a file once, for both splits
    src, x, y = _samples(cfg, "train", read)
    test_src, tx, ty = _samples(cfg, "test", read)
    if d.points:
        where = _point_set(cfg, read, [(src, x.shape[1]), (test_src, tx.shape[1])])
        return src, [("train", d.resolution, x, y), (f"test/{d.resolution}", d.resolution, tx, ty)], where
    train, test = strides(cfg, x.shape[1], src), strides(cfg, tx.shape[1], test_src)
    out = [("train", d.resolution, subsample(x, train[d.resolution], dims), subsample(y, train[d.resolution], dims))]
    out += [(f"test/{r}", r, subsample(tx, test[r], dims), subsample(ty, test[r], dims)) for r in d.resolutions]
    return src, out, None
