"""The clamped run's refined answers against the finite-element reference, moments included (issue 72,
docs/notes/operator_estimate.md, session h72): all 27 loads of the study at 33² by their work values, the reference
``fem.plate.on_rectangle`` (Argyris, h = 1/32, the patches' edges among the mesh's lines, as
``studies.plate_references``), rel-L2 of ``w, M_x, M_y, M_xy`` trained -> refined (``predict(x, refine=STEPS)``),
mean per kind and each patch; the seconds per input of the refinement. ``python
operator_refine_clamped_moments_fem.py RUN [STEPS]``."""
import sys
import time

import numpy as np

from sciml import load_run
from sciml.equations.plate_reference import ood_loads
from sciml.solvers.classical.fem.plate import on_rectangle

NAMES = ("w", "mx", "my", "mxy")
run, steps = load_run(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 200
s = 33
grid = np.linspace(0.0, 1.0, s)
points = np.stack([a.ravel() for a in np.meshgrid(grid, grid, indexing="ij")], axis=1)
items = ood_loads.loads(s, sampling="work")
x = np.stack([q for _, _, q in items])[..., None].astype(np.float32)
kinds = [k for k, _, _ in items]
reference = []
for _, _, load in ood_loads.drawn():
    xs, ys = load.lines() if hasattr(load, "lines") else ((), ())
    fields = on_rectangle((0, *xs, 1), (0, *ys, 1), "clamped", 1.0, 0.3, load, 1 / 32).fields(points)
    reference.append({k: fields[k].reshape(s, s) for k in NAMES})
derived = run.derived(x)
trained = {"w": run.predict(x)["prediction"][..., 0], **{k: derived[k][..., 0] for k in NAMES[1:]}}
t = time.perf_counter()
out = run.predict(x, refine=steps)
seconds = (time.perf_counter() - t) / len(x)
refined = {"w": out["prediction"][..., 0], **{k: out[k][..., 0] for k in NAMES[1:]}}
rel = lambda a, b: float(np.linalg.norm(a - b) / np.linalg.norm(b))  # noqa: E731
table = {when: np.array([[rel(got[k][i], reference[i][k]) for k in NAMES] for i in range(len(x))])
         for when, got in (("trained", trained), ("refined", refined))}
print(f"{len(x)} loads, {steps} steps, {seconds:.1f} s per input (refinement); rel-L2 w / M_x / M_y / M_xy")
for kind in dict.fromkeys(kinds):
    at = [i for i, k in enumerate(kinds) if k == kind]
    cells = [f"{when} " + " / ".join(f"{v:.4f}" for v in table[when][at].mean(0)) for when in table]
    print(f"  {kind:12s} " + "  ->  ".join(cells), flush=True)
    if kind.startswith("patch"):
        for i in at:
            print("      each: " + " / ".join(f"{v:.4f}" for v in table["refined"][i]))
worst = table["refined"].max(0)
print("largest after refinement: " + " / ".join(f"{v:.4f}" for v in worst))
