"""Why the energy alone diverges when it refines a load on clamped edges (issue 72, docs/notes/operator_estimate.md,
2026-12-04): one load of the study refined by Adam on the energy whose bending is on a grid QUADRATURE times finer
than the inputs' (2: the training's), every 50 steps its true error against the finite-difference reference, its
estimate, the same field's energy with the bending on the 2x, 4x and 8x grids, the ``boundary`` term (the clamped
conditions) and the ``pde`` term. ``RUN=... python operator_refine_clamped.py KIND INDEX STEPS [QUADRATURE] [LR]``."""
import dataclasses, os, sys, time
import numpy as np
from sciml import cases
from sciml.bench.studies import plate_references
from sciml.equations.plate_reference import ood_loads
from sciml.solvers.fno import estimate
from sciml.solvers.fno.export import _trained
from sciml.solvers.fno.run import physics_for

RUN = os.environ["RUN"]  # a plate_operator_clamped run at 33²
kind, idx, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
train_refine = int(sys.argv[4]) if len(sys.argv) > 4 else 2
lr = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-3
cfg = cases.load(RUN + "/config.yaml").config
_, _, op, params, stats = _trained(cfg, RUN)
s = 33
items = [it for it in ood_loads.loads(s, sampling="work") if it[0] == kind]
drawn = [d for d in ood_loads.drawn() if d[0] == kind]
_, c, q = items[idx]
x = q[None, ..., None].astype(np.float32)
w, _ = plate_references(drawn[idx][2], c, np.linspace(0, 1, s))
at = physics_for(cfg, s)
ats = {r: dataclasses.replace(at, refine=r) for r in (2, 4, 8)}
run = estimate.estimator(op, at)
E = {r: estimate.objective(op, a, a.energy) for r, a in ats.items()}
B = estimate.objective(op, at, at.boundary)
P = estimate.objective(op, at, at.pde)
ref = ats[train_refine]
tx, advance = estimate.refiner(op, ref, ref.energy, lr)
err = lambda pred: np.linalg.norm(np.asarray(pred)[0, ..., 0] - w) / np.linalg.norm(w)
p, opt = params, tx.init(params)
t0 = time.time()
def show(k):
    pred, e = run(p, stats, x)
    print(k, f"err {err(pred):.4f} est {float(e[0]):.3f} E2 {float(E[2](p, stats, x)):.4f} E4 {float(E[4](p, stats, x)):.4f} "
          f"E8 {float(E[8](p, stats, x)):.4f} bnd {float(B(p, stats, x)):.2e} pde {float(P(p, stats, x)):.3f} t {time.time()-t0:.0f}", flush=True)
show(0)
for k in range(1, steps // 50 + 1):
    p, opt = advance(p, opt, stats, x, 50)
    show(k * 50)
