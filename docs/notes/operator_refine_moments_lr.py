"""The point-like patches' moments after refinement against the first learning rate (issue 72, session 51,
docs/notes/operator_estimate.md): the loads of ``KINDS`` of the out-of-distribution study (``ood_loads.loads``, by
their work values, on ``S``²), each refined by ``load_run(RUN).predict(x, refine=STEPS, lr=LR)`` (the package's
default path otherwise: cosine to 1 % of ``LR``, band work, the kept iterate by the 4× energy among the admissible),
rel-L2 of ``w / M_x / M_y / M_xy`` against Navier's series per load (a clamped run's: against the study's finite
elements, ``studies.plate_references``), and the seconds per input (compiling included). ``LR`` may carry the
schedule: ``1e-3:constant`` (default the package's, cosine for a plate).
``python operator_refine_moments_lr.py RUN S STEPS[,STEPS...] LR[,LR...] KIND[,KIND...]``."""
import sys
import time

import numpy as np

from sciml import cases, load_run
from sciml.bench.studies import MOMENTS, plate_references
from sciml.equations.plate_reference import ood_loads, random_loads

folder, s = sys.argv[1], int(sys.argv[2])
steps = [int(v) for v in sys.argv[3].split(",")]
rates = [(float(v.split(":")[0]), (v.split(":") + [None])[1]) for v in sys.argv[4].split(",")]
kinds = sys.argv[5].split(",")
model = load_run(folder)
grid = np.linspace(0.0, 1.0, s)
picked = [i for i, item in enumerate(ood_loads.loads(s, sampling="work")) if item[0] in kinds]
items = [ood_loads.loads(s, sampling="work")[i] for i in picked]
x = np.stack([q for _, _, q in items])[..., None].astype(np.float32)
if cases.load(f"{folder}/config.yaml").config.data.params.get("edges") == "clamped":
    drawn = ood_loads.drawn()
    truth = [plate_references(drawn[i][2], drawn[i][1], grid, fields=MOMENTS)[0] for i in picked]
else:
    truth = [random_loads.solution(c, grid) for _, c, _ in items]
names = ("w", "mx", "my", "mxy")


def scored(got: dict) -> np.ndarray:
    return np.array([[np.linalg.norm(np.asarray(got[k])[i, ..., 0] - truth[i][k]) / np.linalg.norm(truth[i][k])
                      for k in names] for i in range(len(items))])


trained = scored({"w": model.predict(x)["prediction"][..., :1], **model.derived(x)})
print(f"{s}^2, {len(items)} loads ({', '.join(kinds)}); rel-L2 w / M_x / M_y / M_xy per load", flush=True)
for i, (kind, _, _) in enumerate(items):
    print(f"  trained {kind}: " + " / ".join(f"{v:.4f}" for v in trained[i]), flush=True)
for n in steps:
    for lr, schedule in rates:
        t = time.perf_counter()
        out = model.predict(x, refine=n, lr=lr, schedule=schedule)
        seconds = (time.perf_counter() - t) / len(x)
        got = scored({"w": out["prediction"][..., :1], **{k: out[k] for k in names[1:]}})
        mean = " / ".join(f"{v:.4f}" for v in got.mean(0))
        print(f"{n} steps, lr {lr:g} {schedule or 'default'}: {seconds:.1f} s per input; mean {mean}", flush=True)
        for i, (kind, _, _) in enumerate(items):
            print(f"    {kind}: " + " / ".join(f"{v:.4f}" for v in got[i]) + f"  (kept energy {out['energy'][i]:.4g}, "
                  f"steps {out['refine_steps'][i]})", flush=True)
