r"""Observations (``data:``): measured values of derived fields at points, a misfit term each, and their generator.

**The misfit.** For each observed field :math:`q` (a derived field of the equation, physical units) at
points :math:`x_i` with values :math:`y_i`, the loss term ``data.<q>`` (group ``data``) is

.. math:: L_q = \frac{1}{N} \sum_i \Big(\frac{q_\theta(x_i) - y_i}{s_q}\Big)^2, \qquad
          s_q = \sqrt{\tfrac{1}{N}\textstyle\sum_i y_i^2},

the prediction made with the equation at the unknowns' current values (:mod:`.unknowns`), weighed by
``data.weight``. The points and scaled values ride in the batch as ``batch["data"] = {"x", "y": {q: ...}}``
(the same on every device), with an ensemble's bootstrap weights beside them (:mod:`.ensemble`).

**The file.** CSV whose header names the coordinates and the fields (other columns are ignored), or HDF5
with one dataset per name. A missing file names the command that makes it; missing columns name the file.

**The generator** (``sciml datagen CASE.yaml``): points by ``data.sensors`` (:data:`LAYOUTS`: a regular grid
strictly inside the domain's box, or uniform random points in the domain), values from the equation's
reference at the section's own values (the plate's Navier series, an exact flow), plus Gaussian noise of std
``data.noise`` times each field's rms over the points, all from ``data.seed``; written atomically as CSV.
"""
from __future__ import annotations

import csv
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sciml import equations
from sciml.compile import Policy, points
from sciml.errors import BadFile, ConfigError, Invalid, MissingFile, UserError
from sciml.io import hdf5

from ..geometry import build_geometry

if TYPE_CHECKING:
    from ..config import DataConfig, PinnCase
    from ..derivatives import Derivatives

GROUP = "data"  # the loss group of the misfit terms, named data.<field>


def check(cfg: PinnCase, domain) -> None:
    """The observed fields are the equation's derived fields; a sensor grid has a count per coordinate."""
    d = cfg.data
    if d is None:
        return
    names = equations.create(cfg.equation, domain).derived_names
    for i, q in enumerate(d.fields):
        if q not in names:
            raise Invalid(f"data.fields[{i}]", f"{q!r} is not a field of the equation; its fields are {list(names)}")
    if d.sensors is not None and d.sensors.layout == "grid" and len(d.sensors.points) != domain.dim:
        raise Invalid("data.sensors.points", f"a grid needs {domain.dim} counts, one per coordinate "
                                             f"{list(domain.coords)}, got {d.sensors.points}")


def read(path: str, names: list[str]) -> dict[str, np.ndarray]:
    """``{name: values (N,)}`` from a CSV with those columns or an HDF5 file with those datasets."""
    if not os.path.exists(path):
        raise MissingFile("data file", path, "data.path")
    if path.endswith((".h5", ".hdf5")):
        with hdf5.opened(path, "data file") as f:
            cols = {n: np.asarray(f[n][()], float).ravel() for n in names if n in f}
    else:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            try:
                rows = [[float(row[n]) for n in names if n in header] for row in reader]
            except (TypeError, ValueError) as e:
                raise BadFile(f"{path}: not a table of numbers ({e})") from None
        cols = {n: np.array([r[i] for r in rows], float) for i, n in enumerate(n for n in names if n in header)}
    missing = [n for n in names if n not in cols]
    if missing:
        raise BadFile(f"{path}: no column(s) {missing}; the data file needs columns {names}")
    if len({len(v) for v in cols.values()}) > 1 or not len(next(iter(cols.values()))):
        raise BadFile(f"{path}: the columns {names} must hold the same number (> 0) of values")
    return cols


class Observations:
    """The observations of a case: points and scaled values for the batch, and the misfit residuals."""

    def __init__(self, fields, cols: dict[str, np.ndarray], equation):
        self.fields = tuple(fields)
        self.points = np.stack([cols[x] for x in equation.coords], -1)
        self.scale = {q: float(np.sqrt(np.mean(cols[q] ** 2))) or 1.0 for q in self.fields}
        self.batch = {"x": equation.to_nondim(self.points), "y": {q: cols[q] / self.scale[q] for q in self.fields}}

    @classmethod
    def of(cls, c: DataConfig, equation) -> Observations:
        """The observations in the file ``c.path``."""
        return cls(c.fields, read(c.path, [*equation.coords, *c.fields]), equation)

    @classmethod
    def stand_in(cls, c: DataConfig, equation) -> Observations:
        """One made-up observation, for what needs only the terms (checking a case before its data exist)."""
        centre = equation.to_physical(np.zeros((1, len(equation.coords))))
        return cls(c.fields, {**{x: centre[:, i] for i, x in enumerate(equation.coords)},
                              **{q: np.ones(1) for q in c.fields}}, equation)

    def residuals(self, derived: dict, data: dict) -> dict:
        """``{data.<q>: per-point misfit}`` from the derived fields at the batch's data points (times
        ``data["root_count"]`` when given: an ensemble member's resample, :mod:`.ensemble`)."""
        w = data.get("root_count", 1.0)
        return {f"{GROUP}.{q}": w * (derived[q] / self.scale[q] - data["y"][q]) for q in self.fields}


# --- the generator --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Misfit:
    """The observations' loss terms (``data.<field>``, group ``data``, weighed by ``data.weight``): the derived
    fields at the data points, from exact derivatives of the network (no stochastic estimate), less the observed
    values (:meth:`Observations.residuals`). A feature's terms (:class:`~.features.Terms`)."""

    observations: Observations
    derivs: Derivatives
    requests: tuple
    weight: float

    @classmethod
    def of(cls, observations: Observations, derivs: Derivatives, probe, c: DataConfig) -> Misfit:
        """What the observed fields read, collected from the equation ``probe``."""
        return cls(observations, derivs, derivs.requests(lambda d: observed(probe, d, observations.fields)), c.weight)

    def weights(self) -> dict[str, float]:
        return {GROUP: self.weight}

    def residuals(self, params, net: Callable, eq, batch: dict) -> dict:
        d = self.derivs.at(net, self.requests, batch["data"]["x"])
        return self.observations.residuals(observed(eq, d, self.observations.fields), batch["data"])


def observed(eq, d, fields) -> dict:
    """The observed ``fields`` (derived, physical) from the fields ``d``, by equation ``eq``."""
    derived = eq.derived(d)
    return {q: derived[q] for q in fields}


def _grid(domain, counts: list[int], rng) -> np.ndarray:
    """A regular grid of ``counts`` points per coordinate strictly inside the box (edges left out), those
    inside the domain kept."""
    axes = [lo + (hi - lo) * np.arange(1, n + 1) / (n + 1) for (lo, hi), n in zip(domain.bounds, counts)]
    pts = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], -1)
    return pts[domain.contains(pts)]


def _random(domain, counts: list[int], rng) -> np.ndarray:
    return domain.interior(counts[0], rng, "uniform")


LAYOUTS: dict[str, Callable] = {"grid": _grid, "random": _random}  # data.sensors.layout -> (domain, counts, rng)


def generate(cfg: PinnCase, domain) -> dict[str, np.ndarray]:
    """``{coordinate or field: values}``: the observations ``sciml datagen`` writes (module notes)."""
    d = cfg.data
    assert d is not None and d.sensors is not None, "datagen checks both"
    rng = np.random.default_rng(d.seed)
    eq = equations.create(cfg.equation, domain)
    pts = LAYOUTS[d.sensors.layout](domain, d.sensors.points, rng)
    ref = eq.reference(pts)
    if ref is None:
        raise UserError(f"the equation ({cfg.equation.type}) has no reference solution to make data from")
    cols = {x: pts[:, i] for i, x in enumerate(eq.coords)}
    for q in d.fields:
        clean = np.asarray(ref[q], float)
        cols[q] = clean + noise_std(clean, d.noise) * rng.standard_normal(clean.shape)
    return cols


def noise_std(clean: np.ndarray, noise: float) -> float:
    """The standard deviation of the noise added to a field's ``clean`` values: ``noise`` times their rms."""
    return noise * float(np.sqrt(np.mean(clean**2)))


def datagen(cfg: PinnCase, quiet: bool = False, force: bool = False, workers: int = 1) -> str:
    """Write the case's observations to ``data.path`` (kept if the file exists, unless ``force``); its path."""
    d = cfg.data
    if d is None:
        raise ConfigError("the case has no observations to generate (no data section)", key="data")
    if d.sensors is None:
        raise ConfigError("sciml datagen places the observations by data.sensors, e.g. {layout: grid, points: "
                          "[5, 5]}; this case gives none", key="data.sensors")
    if os.path.exists(d.path) and not force:
        if not quiet:
            print(f"{d.path} exists (use --force to make it again)")
        return d.path
    domain = build_geometry(cfg.geometry)
    with Policy.of(cfg.dtype).precision():
        cols = generate(cfg, domain)
    write(d.path, cols, domain.coords)
    if not quiet:
        print(f"{len(next(iter(cols.values())))} observations of {list(d.fields)} (noise {d.noise:g}) in {d.path}")
    return d.path


def write(path: str, cols: dict[str, np.ndarray], coords) -> None:
    """``cols`` as a CSV with a header (coordinates first), written atomically; its folder made if missing."""
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    points.write(path, np.stack([cols[x] for x in coords], -1), list(coords),
                 {q: v for q, v in cols.items() if q not in coords})
