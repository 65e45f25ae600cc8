"""The bending moments of the plate operator's refined answers (issue 72's goal: moments within 3e-2 after
refinement): the loads of the out-of-distribution study (``ood_loads.loads``, ``sampling`` as there) on the grid of
``S`` points, each refined by ``load_run(RUN).predict(x, refine=STEPS)`` itself (since 2026-12-04, session 50; before, a replay
of ``estimate.refine`` with the energy of the grid's work and a constant learning rate, the default then), the
moments it returns (the kept weights' decoded field's by the Taylor engine at the grid points, as the run's
evaluation derives them) against Navier's series: rel-L2 of ``w / M_x / M_y / M_xy`` per kind, before and after,
the mean and the largest over the loads of a kind.
``python operator_refine_moments.py RUN [S] [STEPS] [SAMPLING]``."""
import sys
import time

import numpy as np

from sciml import cases, load_run
from sciml.equations.plate_reference import ood_loads, random_loads

folder = sys.argv[1]
s = int(sys.argv[2]) if len(sys.argv) > 2 else 33
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 200
sampling = sys.argv[4] if len(sys.argv) > 4 else "work"
cfg = cases.load(f"{folder}/config.yaml").config
model = load_run(folder)
grid = np.linspace(0.0, 1.0, s)
items = ood_loads.loads(s, sampling=sampling)
x = np.stack([q for _, _, q in items])[..., None].astype(np.float32)
truth = [random_loads.solution(c, grid, cfg.data.params.get("D", 1.0), cfg.data.params.get("nu", 0.3))
         for _, c, _ in items]
before = {"w": model.predict(x)["prediction"][..., :1], **model.derived(x)}
start = time.perf_counter()
after = model.predict(x, refine=steps)
seconds = time.perf_counter() - start
after["w"] = after["prediction"][..., :1]
names = ("w", "mx", "my", "mxy")
rows: dict = {}
for i, (kind, _, _) in enumerate(items):
    for when, got in (("before", before), ("after", after)):
        error = [np.linalg.norm(np.asarray(got[k])[i, ..., 0] - truth[i][k]) / np.linalg.norm(truth[i][k])
                 for k in names]
        rows.setdefault(kind, {}).setdefault(when, []).append(error)
print(f"{s}^2, {steps} steps, sampling {sampling}, {seconds / len(x):.1f} s per input (compiling included): rel-L2 "
      "of w / M_x / M_y / M_xy, the mean (the largest) over the loads of a kind")
for kind, by in rows.items():
    cells = [f"{when} " + " / ".join(f"{v:.4f}" for v in np.mean(e, 0)) + " (" +
             " / ".join(f"{v:.4f}" for v in np.max(e, 0)) + ")" for when, e in by.items()]
    print(f"  {kind:12s} " + "  ".join(cells))
