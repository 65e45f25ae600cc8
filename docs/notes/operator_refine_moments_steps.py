"""How the refined moments fall with the refinement's steps (issue 72, docs/notes/operator_estimate.md, "The
moments' floor"): loads ``KINDS`` of the out-of-distribution study at 33² by their work values (the last load of
each kind), each refined from the trained weights of ``RUN`` by Adam (lr 1e-3) on the plate's energy with the load's
work ``WORKS`` (``grid``: the inputs' Simpson quadrature, the default; ``band``: ``physics.band_limited``), no
stopping rule, the true rel-L2 of ``w / M_x / M_y / M_xy`` against Navier's series every ``EVERY`` steps up to
``STEPS``. ``python operator_refine_moments_steps.py RUN KINDS STEPS EVERY WORKS``, e.g. ``RUN
mode_1_5,patch_point 2000 250 grid,band``."""
import dataclasses
import sys

import numpy as np

from sciml import cases
from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.fno import estimate
from sciml.solvers.fno.export import _trained
from sciml.solvers.fno.run import derived_fields, physics_for

folder, kinds, steps, every, works = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
s = 33
cfg = cases.load(f"{folder}/config.yaml").config
_, _, op, params, stats = _trained(cfg, folder)
at = physics_for(cfg, s)
moments = derived_fields(op, at, "closed")
grid = np.linspace(0.0, 1.0, s)
items = {k: (c, q) for k, c, q in ood_loads.loads(s, sampling="work")}
rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)  # noqa: E731
for kind in kinds.split(","):
    c, q = items[kind]
    x = q[None, ..., None].astype(np.float32)
    truth = random_loads.solution(c, grid)
    for work in works.split(","):
        physics = dataclasses.replace(at, work=work)
        tx, advance = estimate.refiner(op, physics, physics.energy, 1e-3)
        p, o, cells = params, tx.init(params), []
        for k in range(0, steps + 1, every):
            if k:
                p, o = advance(p, o, stats, x, every)
            m = moments(p, stats, x)
            e = [rel(np.asarray(op.predict(p, stats, x))[0, ..., 0], truth["w"])]
            e += [rel(np.asarray(m[n])[0, ..., 0], truth[n]) for n in ("mx", "my", "mxy")]
            cells.append(f"{k}: " + "/".join(f"{v:.4f}" for v in e))
        print(kind, work, " | ".join(cells), flush=True)
