"""Issue 72: the refinement's learning-rate schedule, its load's work and which iterate to keep, on records. Each
input refined once from the trained weights of ``RUN`` (Adam from ``LR``, ``SCHEDULE`` ``constant`` or ``cosine``
over ``STEPS``, the energy with the load's work ``WORK``: ``grid`` or ``band``, ``physics.Plate.work``), the
estimate, the refinement's loss and the true rel-L2(w) recorded every ``EVERY`` steps (step 0: the trained
weights), and the true rel-L2 of the moments ``M_x / M_y / M_xy`` every ``MEVERY`` steps. ``SET``: ``ood``, the 27
loads of ``ood_loads.loads`` on the grid of ``S`` points by their work values, against Navier's series; or ``test``,
the run's test loads on that grid (the first ``N``), against their solved outputs (no moments). Records to
``OUT.npz`` (``est, loss, w (inputs, checks)``, ``moments (inputs, mchecks, 3)``, ``kinds``, ``seconds``); replay
the rules with ``operator_refine_replay.py``. ``python operator_refine_schedule.py RUN SET S STEPS EVERY MEVERY WORK
SCHEDULE LR OUT [N]``; environment: ``CHOICE=4`` also records the energy with its bending on the 4× grid
(``finer``), ``ONLY=18,24`` refines those inputs alone."""
import dataclasses
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from sciml import cases
from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.fno import data, estimate, export
from sciml.solvers.fno.run import derived_fields, physics_for

folder, which, s, steps, every, mevery, work, schedule, lr, out = sys.argv[1:11]
s, steps, every, mevery, lr = int(s), int(steps), int(every), int(mevery), float(lr)
n = int(sys.argv[11]) if len(sys.argv) > 11 else None
cfg = cases.load(f"{folder}/config.yaml").config
_, _, op, params, stats = export._trained(cfg, folder)
at = dataclasses.replace(physics_for(cfg, s), work=work)
loss = estimate.refinement_loss(at, cfg.training.terms)
predict = estimate.estimator(op, at)
tx, advance = estimate.refiner(op, at, loss, lr, steps, schedule)
objective = estimate.objective(op, at, loss)
choice = int(os.environ.get("CHOICE", "0"))  # also record the energy with its bending on a grid this many times finer
finer = estimate.objective(op, at, dataclasses.replace(at, refine=choice).energy) if choice else None
only = [int(i) for i in os.environ["ONLY"].split(",")] if os.environ.get("ONLY") else None  # these inputs alone
moments = jax.jit(derived_fields(op, at, "closed"))
grid = np.linspace(0.0, 1.0, s)
if which == "ood":
    items = ood_loads.loads(s, sampling="work")
    kinds = [k for k, _, _ in items]
    loads = [q for _, _, q in items]
    truths = [random_loads.solution(c, grid) for _, c, _ in items]
else:
    _, tests = data.open_splits(cfg.data.path, [s])
    xs, ys = tests[s].read(np.arange(n or tests[s].n))
    kinds = ["test"] * len(xs)
    loads = [x[..., 0] for x in xs]
    truths = [{"w": y[..., 0]} for y in ys]
rel = lambda a, b: float(np.linalg.norm(a - b) / np.linalg.norm(b))  # noqa: E731
if only:
    kinds, loads, truths = [kinds[i] for i in only], [loads[i] for i in only], [truths[i] for i in only]
est, los, w, mom, seconds, fin = [], [], [], [], [], []
for i, (q, truth) in enumerate(zip(loads, truths)):
    x = jnp.asarray(q[None, ..., None], jnp.float32)
    p, opt, rows, mrows = params, tx.init(params), [], []
    start = time.perf_counter()
    for k in range(0, steps + 1, every):
        if k:
            p, opt = advance(p, opt, stats, x, every)
        pred, guess = predict(p, stats, x)
        rows.append((float(guess[0]), float(objective(p, stats, x)), rel(np.asarray(pred)[0, ..., 0], truth["w"]),
                     float(finer(p, stats, x)) if finer else np.nan))
        if which == "ood" and k % mevery == 0:
            m = moments(p, stats, x)
            mrows.append([rel(np.asarray(m[name])[0, ..., 0], truth[name]) for name in ("mx", "my", "mxy")])
    seconds.append(time.perf_counter() - start)
    rows = np.array(rows)
    est.append(rows[:, 0]), los.append(rows[:, 1]), w.append(rows[:, 2]), mom.append(mrows), fin.append(rows[:, 3])
    print(f"{i} {kinds[i]}: w {rows[0, 2]:.4f} -> last {rows[-1, 2]:.4f}, min {rows[:, 2].min():.4f}; "
          f"est {rows[0, 0]:.3f} -> {rows[-1, 0]:.3f}; loss {rows[0, 1]:.4f} -> {rows[-1, 1]:.4f}; "
          f"{seconds[-1]:.1f} s", flush=True)
np.savez(out, est=np.array(est), loss=np.array(los), w=np.array(w), moments=np.array(mom, dtype=float),
         kinds=np.array(kinds), finer=np.array(fin), seconds=np.array(seconds), every=every, mevery=mevery)
