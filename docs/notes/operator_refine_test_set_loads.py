"""Single test loads of a run refined, with what the kept-iterate rule read (issue 72, session 51): for each index,
the true error before and after ``load_run(RUN).predict(x, refine=STEPS, schedule=...)``, the estimates and the
energies before and after (``estimate_before``, ``estimate``, ``energy_before``, ``energy``), which admissibility
held (the estimate's fall to ``estimate.FACTOR``, the energy's by ``estimate.DROP``, a trained energy >= 0).
``python operator_refine_test_set_loads.py RUN STEPS I[,I...] [SCHEDULE[,SCHEDULE...]]`` (the test set of the
training grid; schedules default: the package's)."""
import sys

import numpy as np

from sciml import cases, load_run
from sciml.solvers.fno import data, estimate

folder, steps = sys.argv[1], int(sys.argv[2])
index = [int(v) for v in sys.argv[3].split(",")]
schedules = sys.argv[4].split(",") if len(sys.argv) > 4 else [None]
cfg = cases.load(f"{folder}/config.yaml").config
x, y = data.Split(cfg.data.path, f"test/{cfg.data.resolution}").read(np.array(index))
run = load_run(folder)
error = lambda p: np.linalg.norm((p - y)[..., 0].reshape(len(y), -1), axis=1) / np.linalg.norm(  # noqa: E731
    y[..., 0].reshape(len(y), -1), axis=1)
before = error(run.predict(x)["prediction"])
for schedule in schedules:
    out = run.predict(x, refine=steps, schedule=schedule)
    after = error(out["prediction"])
    for k, i in enumerate(index):
        e0, e1 = float(out["estimate_before"][k]), float(out["estimate"][k])
        n0, n1 = float(out["energy_before"][k]), float(out["energy"][k])
        why = [name for name, held in (("estimate", e1 <= estimate.FACTOR * e0 * (1 + 1e-6)),
                                       ("drop", n1 < 0 and n0 - n1 >= estimate.DROP * -n1), ("energy>=0", n0 >= 0))
               if held]
        print(f"#{i} {schedule or 'default'}: error {before[k]:.4g} -> {after[k]:.4g} ({after[k] / before[k]:.3f}x); "
              f"estimate {e0:.4g} -> {e1:.4g}; energy {n0:.6g} -> {n1:.6g}; admissible by {why or 'none (as trained)'}",
              flush=True)
