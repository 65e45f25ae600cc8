"""The clamped square's reference for the out-of-distribution study's patch loads (issue 72,
docs/notes/fem_reference.md, "Patch loads on the square"): Argyris' element on the structured mesh of
``fem.mesh.rectangle`` whose lines include the patch's edges (``fem.plate.on_rectangle``), per load and element
side ``h``: the simply supported twin against Navier's series of 1024 × 1024 terms (rel-L2 of ``w, M_x, M_y,
M_xy`` at the 33² points: the solver's own error where the answer is known), the clamped answer's change from the
previous ``h``, and the seconds of the two solves. ``python fem_patch_reference.py [H ...]`` (default 1/16 1/32)."""
import sys
import time
from fractions import Fraction

import numpy as np

from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.classical.fem.plate import on_rectangle

NAMES = ("w", "mx", "my", "mxy")
s = 33
x = np.linspace(0.0, 1.0, s)
points = np.stack([a.ravel() for a in np.meshgrid(x, x, indexing="ij")], axis=1)
rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)  # noqa: E731
hs = [float(Fraction(a)) for a in sys.argv[1:]] or [1 / 16, 1 / 32]
exact = [c for _, c, _ in ood_loads.drawn(terms=1024)]
for (kind, _, load), c1024 in zip(ood_loads.drawn(), exact):
    if kind == "grf":
        continue
    xs, ys = load.lines() if hasattr(load, "lines") else ((), ())
    series, before = random_loads.solution(c1024, x), None
    for h in hs:
        t = time.perf_counter()
        simply, clamped = (on_rectangle((0, *xs, 1), (0, *ys, 1), edges, 1.0, 0.3, load, h).fields(points)
                           for edges in ("simply_supported", "clamped"))
        seconds = time.perf_counter() - t
        twin = " ".join(f"{rel(simply[k].reshape(s, s), series[k]):.1e}" for k in NAMES)
        change = "" if before is None else " ".join(f"{rel(clamped[k], before[k]):.1e}" for k in NAMES)
        print(f"{kind:12s} h={h:.4f} simply supported vs Navier {twin} | clamped change {change} | {seconds:.1f} s",
              flush=True)
        before = clamped
