"""What the plate operator's refinement can reach on a grid (issue 72, docs/notes/operator_estimate.md): for each
load of the out-of-distribution study (``ood_loads.loads``), the exact minimiser of the refinement's discrete
energy (the bending energy of ``physics.Plate.energy``, exact for the sine modes below the fine grid's Nyquist, and
the load's work by the training grid's quadrature, ``Plate.weights``, of the load as given on the grid) among the
double sine series of modes ``m, n < 2 (s - 1)``, scored against Navier's series as the study scores: rel-L2(w) at
the grid points, per way of putting the load on the grid (``ood_loads.SAMPLINGS``). No network: a linear solve,
seconds. ``python operator_refine_floor.py [S ...]`` (default 17 33)."""
import sys

import numpy as np

from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.fno.physics import Plate


def minimiser(q: np.ndarray) -> np.ndarray:
    """The discrete energy's minimiser at the grid points for the load ``q (s, s)`` on the closed grid."""
    s = q.shape[0]
    x, m = np.linspace(0.0, 1.0, s), np.arange(1, 2 * (s - 1))
    sine = np.sin(np.pi * np.outer(x, m))
    work = 4.0 * sine.T @ (Plate(1.0, 0.3, s).weights().reshape(s, s) * q) @ sine  # 4 ∫ q φ_mn (∫ φ_mn² = 1/4)
    return sine @ (work / (np.pi ** 4 * (m[:, None] ** 2 + m[None, :] ** 2) ** 2)) @ sine.T


for s in [int(a) for a in sys.argv[1:]] or [17, 33]:
    x = np.linspace(0.0, 1.0, s)
    rows: dict = {}
    for sampling in ood_loads.SAMPLINGS:
        for kind, c, q in ood_loads.loads(s, sampling=sampling):
            truth = random_loads.solution(c, x)["w"]
            rows.setdefault(kind, {}).setdefault(sampling, []).append(
                np.linalg.norm(minimiser(q) - truth) / np.linalg.norm(truth))
    series = {kind: [np.linalg.norm(minimiser(ood_loads.on_grid(c, x)) - random_loads.solution(c, x)["w"])
                     / np.linalg.norm(random_loads.solution(c, x)["w"])]
              for kind, c, _ in ood_loads.loads(s) if kind in ("uniform", "hydrostatic")}
    print(f"{s}^2: the discrete energy's minimiser against Navier's series, rel-L2(w) (mean, max over the loads)")
    for kind, by in rows.items():
        extra = f"  series at the points {series[kind][0]:.4f}" if kind in series else ""
        print(f"  {kind:12s} " + "  ".join(f"{k} {np.mean(v):.5f} ({np.max(v):.5f})" for k, v in by.items()) + extra)
