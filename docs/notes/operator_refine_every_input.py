"""Issue 72, session 56 (docs/notes/operator_estimate.md): a run's test loads on grid ``GRID`` refined as ``predict``
refines them (``predict(x, refine=STEPS, method="field")``, the package's doors: on 33² and finer every input refined
and any fall of the field's energy admitted, ``estimate.doors``), scored against the test set's answers: the mean
relative L2 error of ``w`` before and after, and the loads made worse. ``python operator_refine_every_input.py RUN
STEPS GRID N OUT.npz`` (the first ``N`` test loads of that grid)."""
import sys, time
import numpy as np
from sciml import cases, load_run
from sciml.solvers.fno import data
folder, steps, grid, n, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cfg = cases.load(f"{folder}/config.yaml").config
split = data.Split(cfg.data.path, f"test/{grid}")
x, y = split.read(np.arange(min(n, len(split))))
run = load_run(folder)
norms = lambda a: np.linalg.norm(a[..., 0].reshape(len(a), -1), axis=1)
run.predict(x[:1], refine=steps, method="field")  # compiled before the clock runs
t0 = time.perf_counter()
after = run.predict(x, refine=steps, method="field")
t = time.perf_counter() - t0
before = run.predict(x, estimate=True)
e0, e1 = norms(before["prediction"] - y) / norms(y), norms(after["prediction"] - y) / norms(y)
below = before["estimate"] < 0.5 * before["threshold"]
np.savez(out, e0=e0, e1=e1, estimate=before["estimate"], threshold=before["threshold"], steps=after["refine_steps"])
worse = e1 > e0 * (1 + 1e-3)
print(f"{len(x)} loads at {grid}^2, {steps} iterations, {t / len(x):.2f} s an input: mean {e0.mean():.4g} -> "
      f"{e1.mean():.4g}, worse {worse.sum()}" + (f" ({np.round(e1[worse] / e0[worse], 3)})" if worse.any() else "")
      + f"; below half the flag {below.sum()}: {e0[below].mean():.4g} -> {e1[below].mean():.4g}; largest ratio "
      f"{np.max(e1 / e0):.3f}")
