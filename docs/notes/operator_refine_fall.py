"""Issue 72, session 52: the kept iterate's energy condition (``estimate.FALL``). Each input refined once as
``load_run(RUN).predict(x, refine=STEPS, lr=LR)`` refines it (the same pieces: ``run.physics_for``,
``estimate.refinement_loss``, ``refiner`` with ``schedule_for``, the choice's ``objective`` on the
``CHOICE_QUADRATURE`` grid; inputs estimated below ``FLOOR`` times the flag threshold take no step), the estimate,
the choice's energy and the true error recorded every 10 steps; then ``estimate.refine``'s loop replayed on the
records with ``estimate.admissible(..., fall=F)`` for each ``F`` of ``FALLS`` (``none``: no energy condition, the
rule before session 52): the loads made worse and better (by more than 0.1 %), the mean and largest error, and the
energy's fall (a share of its size) of each load the estimate's fall would admit.

``python operator_refine_fall.py RUN STEPS LR S SET N RECORDS.npz FALLS`` (``S``: the grid, 0 the training one;
``SET``: ``test``, the run's test set at ``S``, or ``fresh``, the 50 ``grf`` draws of session 43,
``ood_loads.loads(S, seed=2, grf=50, patches=0, modes=())`` against Navier's series (simply supported plates);
``N``: the first N inputs, 0 all; ``FALLS`` comma-separated; the records are read back when the file exists)."""
import os
import sys
import time

import jax.numpy as jnp
import numpy as np

from sciml import cases
from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.fno import data, estimate, export
from sciml.solvers.fno.run import physics_for

folder, steps, lr = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
which, n, saved = sys.argv[5], int(sys.argv[6]), sys.argv[7]
falls = [None if f == "none" else float(f) for f in sys.argv[8].split(",")]
every = 10
assert steps % every == 0, f"STEPS a multiple of {every}"
cfg = cases.load(f"{folder}/config.yaml").config
s = int(sys.argv[4]) or cfg.data.resolution
_, _, op, params, stats = export._trained(cfg, folder)
at = physics_for(cfg, s)
predict = estimate.estimator(op, at)
loss = estimate.refinement_loss(at, cfg.training.terms)
tx, advance = estimate.refiner(op, at, loss, lr, steps, estimate.schedule_for(at))
energy = estimate.objective(op, at, estimate.refinement_loss(at, cfg.training.terms, estimate.CHOICE_QUADRATURE))
threshold = estimate.threshold_for(export.calibration(cfg, folder, op, {"params": params, "stats": stats}), s)
floor = estimate.FLOOR * threshold


def record(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``(checks, 3)``: estimate, energy, true error of the trained weights and every ``every`` steps after (NaN
    rows after the first where the input is estimated below the floor: no step)."""
    x = jnp.asarray(x[None], jnp.float32)
    p, opt, rows = params, tx.init(params), []
    for k in range(0, steps + 1, every):
        if k and rows[0][0] < floor:
            rows.append((np.nan, np.nan, np.nan))
            continue
        if k:
            p, opt = advance(p, opt, stats, x, every)
        pred, guess = predict(p, stats, x)
        rows.append((float(guess[0]), float(energy(p, stats, x)),
                     float(np.linalg.norm(np.asarray(pred)[0, ..., 0] - w) / np.linalg.norm(w))))
    return np.array(rows)


def kept(h: np.ndarray, fall: float | None) -> int:
    """The check ``estimate.refine`` keeps (``tol`` None): the lowest energy among the admissible ones."""
    first, start = h[0, 0], h[0, 1]
    if first < floor:
        return 0
    rank = lambda k: h[k, 1] if estimate.admissible(h[k, 0], first, estimate.FACTOR, start, h[k, 1],  # noqa: E731
                                                    fall=fall) else np.inf
    best, index = rank(0), 0
    for k in range(1, len(h)):
        if rank(k) < best:
            best, index = rank(k), k
    return index


if os.path.exists(saved):
    with np.load(saved) as f:
        records = f["records"]
else:
    if which == "test":
        split = data.Split(cfg.data.path, f"test/{s}")
        xs, ys = split.read(np.arange(n or len(split)))
        inputs = [(xs[i], ys[i, ..., 0]) for i in range(len(xs))]
    else:
        grid = np.linspace(0.0, 1.0, s)
        inputs = [(q[..., None], random_loads.solution(c, grid)["w"])
                  for kind, c, q in ood_loads.loads(s, seed=2, grf=50, patches=0, modes=()) if kind == "grf"][:n or None]
    t0 = time.perf_counter()
    records = np.stack([record(x, w) for x, w in inputs])
    print(f"{len(records)} {which} inputs at {s}^2, {steps} steps from lr {lr:g}: {time.perf_counter() - t0:.0f} s "
          f"(compiling included), {int(np.sum(records[:, 0, 0] >= floor))} refined", flush=True)
    np.savez(saved, records=records)
print(f"threshold {threshold:.4g}, floor {floor:.4g}")
e0 = records[:, 0, 2]
for fall in falls:
    index = [kept(h, fall) for h in records]
    e1 = np.array([h[k, 2] for h, k in zip(records, index)])
    worse = np.flatnonzero(e1 > e0 * (1 + 1e-3))
    print(f"fall {fall}: mean {e0.mean():.4g} -> {e1.mean():.4g}, max {e0.max():.4g} -> {e1.max():.4g}, worse "
          f"{len(worse)} [" + ", ".join(f"#{i} {e0[i]:.3g}->{e1[i]:.3g} ({e1[i] / e0[i]:.3f}x)" for i in worse)
          + f"], better {int(np.sum(e1 < e0 * (1 - 1e-3)))}, refined and kept {int(np.sum(np.array(index) > 0))}")
# the energy's fall (a share of its size) of the iterate each refined load keeps under the estimate's fall alone
for i, h in enumerate(records):
    k = kept(h, None)
    if k and estimate.admitted_by(h[k, 0], h[0, 0], estimate.FACTOR, h[0, 1], h[k, 1], fall=None) == ["estimate"]:
        share = (h[0, 1] - h[k, 1]) / abs(h[k, 1])
        print(f"#{i}: by the estimate alone, error {e0[i]:.4g} -> {h[k, 2]:.4g} ({h[k, 2] / e0[i]:.3f}x), estimate "
              f"{h[0, 0]:.4g} -> {h[k, 0]:.4g}, energy {h[0, 1]:.7g} -> {h[k, 1]:.7g}, fall {share:.3g} of its size")
