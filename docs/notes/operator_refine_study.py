"""Issue 72, item 2: test-time refinement of the plate operator by the physics loss alone, one input at a time:
Adam on a copy of the operator's weights (instance-wise fine-tuning, Li et al., PINO 2021) minimising the plate's
energy (Ritz; w = 0 imposed by the model) of the decoded field for that input, the estimate evaluated every
``every`` steps and the iterate of the smallest estimate kept (``sciml.solvers.fno.estimate.refine``, what
``sciml predict RUN --refine STEPS`` runs). ``python operator_refine_study.py RUN [STEPS] [LR] [EVERY]`` for a run
of plate_operator_quick; prints the true error (Navier's series) and the estimate before and after, the last
iterate's true error beside the kept one's (the refinement without the keeping), and the calibrated flag."""
import sys
import time

import jax.numpy as jnp
import numpy as np
from operator_estimate_study import RL, cfg, loads, op, params, run, stats  # the same run and loads

from sciml.solvers.fno import estimate, export
from sciml.solvers.fno.physics import Plate

s = 17
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
lr = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-3
every = int(sys.argv[4]) if len(sys.argv) > 4 else 10
x, items = loads(s)
physics = Plate.of(cfg.data.params, s)
predict = estimate.estimator(op, physics)
tx, advance = estimate.refiner(op, physics, physics.energy, lr)
threshold = estimate.threshold_for(export.calibration(cfg, run, op, {"params": params, "stats": stats}), s)
print(f"flag threshold at s = {s}: {threshold:.4g}")


def error(w, ref):
    w = np.asarray(w)[0, ..., 0]
    return float(np.linalg.norm(w - ref) / np.linalg.norm(ref))


energy = estimate.objective(op, physics, physics.energy)
for name, c, qgrid in items[::3] + items[-5:]:
    q = jnp.asarray(qgrid[None, ..., None], jnp.float32)
    ref = RL.solution(c, x)["w"]
    w0, _ = predict(params, stats, q)
    t0 = time.perf_counter()
    out = estimate.refine(predict, tx, advance, params, stats, q, steps, None, every)
    t = time.perf_counter() - t0
    by_energy = estimate.refine(predict, tx, advance, params, stats, q, steps, None, every, energy=energy)
    last, _ = advance(params, tx.init(params), stats, q, steps)  # the last iterate, as the first study took it
    e0, e1, e2 = (float(o) for o in (out["estimate_before"][0], out["estimate"][0], by_energy["estimate"][0]))
    flags = "".join("F" if e >= threshold else "." for e in (e0, e1, e2))
    print(f"{name:12s} true {error(w0, ref):8.3g} -> kept by estimate {error(out['prediction'], ref):8.3g}, by "
          f"energy {error(by_energy['prediction'], ref):8.3g}, last {error(predict(last, stats, q)[0], ref):8.3g}"
          f"   estimate {e0:8.3g} -> {e1:8.3g}, {e2:8.3g}  flags {flags}   {t:5.1f} s")
