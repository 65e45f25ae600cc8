"""Issue 72, session 56 (docs/notes/operator_estimate.md): a run's test inputs on grid ``GRID`` refined as ``predict``
refines them (``predict(x, refine=STEPS, method=METHOD)``, with the package's doors: every input refined and any fall
of the energy admitted for a plate's field on 33² and finer and for Darcy, ``estimate.doors``), scored against the
test set's answers: the mean relative L2 error of the first output channel before and after, the inputs made worse,
and the same had the inputs estimated below half the flag been left as trained (the doors before session 56).
``python operator_refine_every_input.py RUN STEPS GRID N OUT.npz [METHOD]`` (the first ``N`` test inputs of that grid;
``METHOD`` field or weights, by default ``predict``'s)."""
import sys, time
import numpy as np
from sciml import cases, load_run
from sciml.solvers.fno import data, estimate
folder, steps, grid, n, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
method = sys.argv[6] if len(sys.argv) > 6 else None
cfg = cases.load(f"{folder}/config.yaml").config
split = data.Split(cfg.data.path, f"test/{grid}")
x, y = split.read(np.arange(min(n, len(split))))
run = load_run(folder)
norms = lambda a: np.linalg.norm(a[..., 0].reshape(len(a), -1), axis=1)
run.predict(x[:1], refine=steps, method=method)  # compiled before the clock runs
t0 = time.perf_counter()
after = run.predict(x, refine=steps, method=method)
t = time.perf_counter() - t0
before = run.predict(x, estimate=True)
e0, e1 = norms(before["prediction"] - y) / norms(y), norms(after["prediction"] - y) / norms(y)
below = before["estimate"] < estimate.FLOOR * before["threshold"]
np.savez(out, e0=e0, e1=e1, estimate=before["estimate"], threshold=before["threshold"], steps=after["refine_steps"])
for name, got in (("every input", e1), ("below half the flag as trained", np.where(below, e0, e1))):
    worse = got > e0 * (1 + 1e-3)
    print(f"{name}: {len(x)} inputs at {grid}^2, mean {e0.mean():.4g} -> {got.mean():.4g}, worse {worse.sum()}"
          + (f" ({np.round(got[worse] / e0[worse], 3)})" if worse.any() else "") + f", largest {got.max():.4g}")
print(f"{steps} steps, {t / len(x):.2f} s an input; below half the flag {below.sum()}: {e0[below].mean():.4g} -> "
      f"{e1[below].mean():.4g}; largest ratio {np.max(e1 / e0):.3f}")
