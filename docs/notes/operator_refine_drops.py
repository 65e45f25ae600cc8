"""Issue 72, session 55 (docs/notes/operator_estimate.md): the share of the energy's fall that admits a field
correction's iterate (``estimate.DROPS``), judged on ``operator_refine_falls.py RUN STEPS GRID OUT.npz last`` outputs
(every refined load's last iterate scored): the package's rule (``estimate.admissible``) read from the last iterate,
its share of the energy's fall ``T`` (its estimate at most 0.4 times the trained one's with the energy down by 2e-4 of
its size, a trained energy not below 0, or a fall of at least ``T`` of its size). ``python operator_refine_drops.py
OUT.npz ...``."""
import sys

import numpy as np

from sciml.solvers.fno import estimate

for path in sys.argv[1:]:
    d = np.load(path)
    e0, e1, eb, e, est, est1 = (d[k] for k in ("e0", "e1", "energy_before", "energy", "estimate", "estimate_after"))
    fall = (eb - e) / np.abs(e)
    print(f"{path}: {len(e0)} loads, mean {e0.mean():.4g}; the largest falls {np.round(np.sort(fall)[-5:], 5)}")
    for T in (0.25, 2e-2, 1e-2, 5e-3, 3e-3, 1e-3, 2e-4):
        kept = np.array([estimate.admissible(g, g0, energy_first=a, energy=b, drop=T)
                         for g, g0, a, b in zip(est1, est, eb, e)])
        got = np.where(kept, e1, e0)
        worse, better = got > e0 * (1 + 1e-3), got < e0 * (1 - 1e-3)
        print(f"  fall >= {T:<6g} admitted {kept.sum():3d}, mean {got.mean():.4g}, better {better.sum():3d}, "
              f"worse {worse.sum()}" + (f" (largest {np.max(got / e0):.3f}; falls {np.round(fall[worse], 5)})"
                                        if worse.any() else ""))
