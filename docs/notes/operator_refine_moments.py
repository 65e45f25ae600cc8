"""The bending moments of the plate operator's refined answers (issue 72's goal: moments within 3e-2 after
refinement): the loads of the out-of-distribution study (``ood_loads.loads``, ``sampling`` as there) on the grid of
``S`` points, each refined as ``load_run(RUN).predict(x, refine=STEPS)`` refines it (``estimate.refine`` with the
run's rule), the moments of the kept weights' decoded field by the Taylor engine at the grid points (as the run's
evaluation derives them), against Navier's series: rel-L2 of ``M_x, M_y, M_xy`` per kind, before and after.
``python operator_refine_moments.py RUN [S] [STEPS] [SAMPLING]``."""
import sys

import numpy as np

from sciml import cases
from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.fno import estimate
from sciml.solvers.fno.export import _trained, calibration
from sciml.solvers.fno.run import derived_fields, physics_for

folder = sys.argv[1]
s = int(sys.argv[2]) if len(sys.argv) > 2 else 33
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 200
sampling = sys.argv[4] if len(sys.argv) > 4 else "work"
cfg = cases.load(f"{folder}/config.yaml").config
_, _, op, params, stats = _trained(cfg, folder)
at = physics_for(cfg, s)
run, moments = estimate.estimator(op, at), derived_fields(op, at, "closed")
tx, advance = estimate.refiner(op, at, at.energy, 1e-3)
energy = estimate.objective(op, at, at.energy)
floor = estimate.FLOOR * estimate.threshold_for(calibration(cfg, folder, op, {"params": params, "stats": stats}), s)
grid = np.linspace(0.0, 1.0, s)
rows: dict = {}
for kind, c, q in ood_loads.loads(s, sampling=sampling):
    x = q[None, ..., None].astype(np.float32)
    truth = random_loads.solution(c, grid, cfg.data.params.get("D", 1.0), cfg.data.params.get("nu", 0.3))
    got = estimate.refine(run, tx, advance, params, stats, x, steps, energy=energy, floor=floor)
    for when, p in (("before", params), ("after", got["params"])):
        m = moments(p, stats, x)
        error = [np.linalg.norm(np.asarray(m[k])[0, ..., 0] - truth[k]) / np.linalg.norm(truth[k])
                 for k in at.derived_names]
        rows.setdefault(kind, {}).setdefault(when, []).append(error)
print(f"{s}^2, {steps} steps, sampling {sampling}: rel-L2 of M_x / M_y / M_xy, mean over the loads of a kind")
for kind, by in rows.items():
    cells = [f"{when} " + " / ".join(f"{v:.4f}" for v in np.mean(e, 0)) for when, e in by.items()]
    print(f"  {kind:12s} " + "  ".join(cells))
