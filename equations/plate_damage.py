r"""A damaged plate: a zone of lower rigidity, :math:`D(x, y) = D\,s(x, y)`, and where an identified field has it.

**The zone** (``equation.damage``): a disc of centre :math:`(x_c, y_c)` and radius :math:`R` where the rigidity is
``drop`` lower, its rim smoothed over a width :math:`\delta` (``width``) so that :math:`D` has the derivatives the
plate's residual reads (:mod:`.plate`):

.. math:: s = 1 - \text{drop}\; g(r), \qquad g(r) = \frac{1 - \tanh\big((r^2 - R^2)/(2R\delta)\big)}
          {1 + \tanh\big(R/(2\delta)\big)},

:math:`r` the distance to the centre: :math:`g(0) = 1` (the full drop at the centre), :math:`g \approx 1` inside
the disc and 0 outside it, falling across :math:`r = R` over about :math:`\delta` (smooth in :math:`x, y`, as
:math:`r^2` is). Its numbers are arithmetic (they may be traced, so ``unknowns: {damage.x: ...}`` locates a zone
of known shape); the reference (:mod:`.plate_reference.variable`) solves the plate with this :math:`D`.

**An identified field's zone** (:func:`zone`): with the undamaged level :math:`\bar D` the median of :math:`D` over
the plate (the zone covers a small part of it) and the deficit :math:`\epsilon = 1 - D/\bar D`, the drop is
:math:`\max\epsilon` and the centre the centroid of :math:`\epsilon - \max\epsilon/2` where it is positive (the
zone's upper half: a symmetric zone's centre exactly, and little moved by the network's ripples elsewhere).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sciml.config import spec
from sciml.errors import Invalid


@dataclass
class DamageConfig:
    """A zone of lower rigidity (module notes): ``D`` times ``1 - drop`` inside a disc, a smooth rim."""

    x: float = spec(help="the zone's centre, x in m")
    y: float = spec(help="the zone's centre, y in m")
    radius: float = spec(gt=0.0, help="its radius in m")
    drop: float = spec(gt=0.0, lt=1.0, help="the relative loss of rigidity at its centre, e.g. 0.3 for 30 %")
    width: float | None = spec(None, gt=0.0, help="the rim's width in m over which D recovers (default: a third "
                                                  "of the radius)")

    def check(self):
        if self.width is not None and not self.width <= self.radius:
            raise Invalid("width", f"{self.width:g} m: the rim is at most the radius ({self.radius:g} m) wide")


def factor(c: DamageConfig, x, y, xp=np):
    """The rigidity's factor :math:`s(x, y)` of the zone ``c`` at physical points (array module ``xp``; the
    zone's numbers may be traced)."""
    width = c.width if c.width is not None else c.radius / 3
    r2 = (x - c.x) ** 2 + (y - c.y) ** 2
    g = (1 - xp.tanh((r2 - c.radius**2) / (2 * c.radius * width))) / (1 + xp.tanh(c.radius / (2 * width)))
    return 1 - c.drop * g


def zone(points: np.ndarray, D: np.ndarray) -> dict:
    """``{"centre": [x, y], "drop": ..., "level": ...}`` of a field ``D`` at points ``(N, 2)`` spread evenly over
    the plate (module notes)."""
    D = np.asarray(D, float).ravel()
    level = float(np.median(D))
    deficit = 1 - D / level
    drop = float(deficit.max())
    weight = np.maximum(deficit - drop / 2, 0.0)
    centre = (weight @ np.asarray(points, float)) / weight.sum() if weight.sum() > 0 else np.full(2, np.nan)
    return {"centre": [float(v) for v in centre], "drop": drop, "level": level}


def scores(found: dict, truth: DamageConfig | None, sides: tuple[float, float]) -> dict[str, float]:
    """``damage_centre_error`` (the centre's worse coordinate as a fraction of the plate's side along it) and
    ``damage_drop_error`` (percentage points) of a zone ``found`` (:func:`zone`) against the truth (none: an
    undamaged plate, the drop's error alone)."""
    if truth is None:
        return {"damage_drop_error": 100 * abs(found["drop"])}
    off = max(abs(f - t) / s for f, t, s in zip(found["centre"], (truth.x, truth.y), sides))
    return {"damage_centre_error": float(off), "damage_drop_error": 100 * abs(found["drop"] - truth.drop)}
