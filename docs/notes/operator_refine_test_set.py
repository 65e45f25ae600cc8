"""Issue 72's goal "refinement never makes an in-distribution prediction worse": the refinement of ``sciml predict
RUN --refine STEPS`` (``load_run(RUN).predict(x, refine=STEPS)``) over a run's test set at its training grid,
the true error of each sample before and after (worse, better: by more than 0.1 %; a load left as trained differs
by float32 round-off, one input against a batch). ``python operator_refine_test_set.py RUN [STEPS] [N] [S] [LR]``
(``S``: the test set of that grid, one of the run's ``data.resolutions``; default, or 0, the training grid; ``LR``:
the refinement's first learning rate, default ``predict``'s)."""
import sys
import time

import numpy as np

from sciml import cases, load_run
from sciml.solvers.fno import data

folder = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
cfg = cases.load(f"{folder}/config.yaml").config
grid = int(sys.argv[4]) if len(sys.argv) > 4 and int(sys.argv[4]) else cfg.data.resolution
rate = {"lr": float(sys.argv[5])} if len(sys.argv) > 5 else {}
split = data.Split(cfg.data.path, f"test/{grid}")
n = int(sys.argv[3]) if len(sys.argv) > 3 and int(sys.argv[3]) else len(split)
x, y = split.read(np.arange(n))
run = load_run(folder)
norms = lambda a: np.linalg.norm(a[..., 0].reshape(n, -1), axis=1)
error = lambda p: norms(p - y) / norms(y)
before = run.predict(x, estimate=True)
t0 = time.perf_counter()
after = run.predict(x, refine=steps, **rate)
t = time.perf_counter() - t0
e0, e1 = error(before["prediction"]), error(after["prediction"])
label = f", lr {rate['lr']:g}" if rate else ""
print(f"{n} test samples at {grid}^2, {steps} steps{label}, {t:.1f} s ({t / n:.2f} s per input, compiling included)")
print(f"true error mean {e0.mean():.4g} -> {e1.mean():.4g}; max {e0.max():.4g} -> {e1.max():.4g}; "
      f"worse: {int(np.sum(e1 > e0 * (1 + 1e-3)))} (largest ratio {np.max(e1 / e0):.4f}); "
      f"better: {int(np.sum(e1 < e0 * (1 - 1e-3)))}, unchanged {int(np.sum(np.isclose(e1, e0, rtol=1e-3)))}")
print(f"estimate mean {after['estimate_before'].mean():.4g} -> {after['estimate'].mean():.4g}; flagged "
      f"{int(before['flagged'].sum())} -> {int(after['flagged'].sum())} (threshold {after['threshold'][0]:.4g})")
flagged = before["flagged"]
worse = np.flatnonzero(e1 > e0 * (1 + 1e-3))
print("worse: " + ", ".join(f"#{i} {e0[i]:.3g} -> {e1[i]:.3g} (estimate {before['estimate'][i]:.3g})" for i in worse))
tol = np.where(before["estimate"] < after["threshold"], e0, e1)  # --tol at the flag threshold: unflagged untouched
print(f"with --tol at the flag threshold: mean {tol.mean():.4g}, max {tol.max():.4g}, worse "
      f"{int(np.sum(tol > e0 * (1 + 1e-3)))}; the flagged {int(flagged.sum())}: mean {e0[flagged].mean():.4g} -> "
      f"{e1[flagged].mean():.4g}, max {e0[flagged].max():.4g} -> {e1[flagged].max():.4g}")
