"""A PINN case's batches of points (what a batch holds: :mod:`.problem`'s module notes): a :class:`Sampler` draws
them, adds refined points and puts them on the devices.

The problem builds its sampler once it knows what its residuals need (:meth:`.problem.Problem._collect`): the
parts whose conditions have residuals, a time window's initial values, the equation's point sets, the periodic
pairs, the observations and a family's parameters.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from sciml import parallel

from .config import SamplingConfig
from .exact import INITIAL
from .features.observations import Observations
from .features.parameters import Parameters
from .geometry.domain import Domain
from .geometry.sampling import avoiding
from .geometry.spacetime import SpaceTime

FIXED = ("points", "data", "constants")  # a batch's entries that are the same on every device


@dataclass(frozen=True)
class Sampler:
    """Draws a case's batches (module notes)."""

    sampling: SamplingConfig
    equation: Any  # the case's (physical points to the network's inputs)
    geometry: Domain
    parts: tuple[str, ...]  # the boundary parts whose conditions have residuals
    initial: tuple[Callable, tuple[str, ...]] | None  # a later time window's (fields at points, the fields carried)
    point_sets: dict[str, np.ndarray]  # name -> the equation's fixed physical points
    pairs: dict[str, tuple[str, np.ndarray]]  # "a|b" -> (part a, the translation onto b)
    observations: Observations | None
    parameters: Parameters | None
    dtype: Any

    def sample(self, rng: np.random.Generator, share: Callable[[int], int] = lambda n: n) -> dict:
        """A batch of nondimensional points in ``dtype``, drawn from ``rng``; ``share(count)`` is this process's
        part of each count (``sampling`` section)."""
        s, eq, geo = self.sampling, self.equation, self.geometry
        count = lambda part: share(s.parts.get(part, s.boundary))
        keep = inside = None
        if s.avoid is not None:  # balls without points (a cavity's lid corners)
            centres, radius = np.asarray(s.avoid.points, float), s.avoid.radius
            keep = lambda point_map: avoiding(point_map, centres, radius)
            inside = keep if s.avoid.interior else None
        interior = [geo.interior(share(s.interior), rng, s.method, inside)]
        interior += [geo.near(p, share(c.points), c.distance, rng, s.method, inside) for p, c in s.near.items()]
        interior += [geo.box(b.lower, b.upper, share(b.points), rng, s.method, inside) for b in s.boxes.values()]
        batch: dict = {"interior": eq.to_nondim(np.concatenate(interior)),
                       "parts": {}, "points": {}, "periodic": {}}
        for p in self.parts:
            pts, normals = geo.boundary(p, count(p), rng, s.method, keep)
            if p == INITIAL and isinstance(geo, SpaceTime):  # and in layers along parts (sampling.near.<part>.initial)
                layers = [geo.space.near(q, share(c.initial), c.distance, rng, s.method, keep)
                          for q, c in s.near.items() if c.initial]
                if layers:
                    more = geo.at_start(np.concatenate(layers))
                    pts, normals = (np.concatenate([a, b]) for a, b in zip((pts, normals), more))
            batch["parts"][p] = {"x": eq.to_nondim(pts), "n": normals}
            if p == INITIAL and self.initial is not None:
                values = self.initial[0](pts)
                batch["parts"][p]["target"] = {q: values[q] for q in self.initial[1]}
        for name, pts in self.point_sets.items():
            batch["points"][name] = eq.to_nondim(pts)
        if self.observations is not None:
            batch["data"] = self.observations.batch
        for name, (a, offset) in self.pairs.items():
            pts, _ = geo.boundary(a, count(a), rng, s.method)
            batch["periodic"][name] = {"a": eq.to_nondim(pts), "b": eq.to_nondim(pts + offset)}
        if self.parameters is not None:  # each point with its own values of the parameters
            batch = self._with_parameters(batch, rng)
        return jax.tree_util.tree_map(lambda a: np.asarray(a, np.dtype(self.dtype)), batch)

    def _with_parameters(self, batch: dict, rng: np.random.Generator) -> dict:
        """``batch`` with the parameters' encoded columns drawn for every point (the same for both points of a
        periodic pair)."""
        family, method = self.parameters, self.sampling.method
        assert family is not None
        draw = lambda x: np.concatenate([x, family.draw(len(x), rng, method)], axis=-1)
        out = {**batch, "interior": draw(batch["interior"]),
               "parts": {p: {**b, "x": draw(b["x"])} for p, b in batch["parts"].items()},
               "points": {k: draw(x) for k, x in batch["points"].items()}, "periodic": {}}
        for name, pb in batch["periodic"].items():
            cols = family.draw(len(pb["a"]), rng, method)
            out["periodic"][name] = {k: np.concatenate([pb[k], cols], axis=-1) for k in ("a", "b")}
        return out

    def extend(self, batch: dict, points) -> dict:
        """``batch`` with physical ``points`` added to its interior points (adaptive refinement)."""
        if points is None or not len(points):
            return batch
        x = np.asarray(self.equation.to_nondim(np.asarray(points, float)), batch["interior"].dtype)
        return {**batch, "interior": np.concatenate([batch["interior"], x])}


def place(batch: dict, mesh) -> dict:
    """The batch on the devices of ``mesh``: sampled points sharded along the data axis (each process gives its
    share), the fixed point sets, observations and constants replicated."""
    sampled = {k: v for k, v in batch.items() if k not in FIXED}
    return {**parallel.shard(sampled, mesh), **{k: parallel.replicate(batch[k], mesh) for k in FIXED if k in batch}}
