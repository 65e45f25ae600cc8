"""Issue 72, session 53 (docs/notes/operator_estimate.md): over a run's test set, each load refined by the field
correction (``predict(x, refine=STEPS, method="field")``) with any fall of the energy admitting the iterate
(``refine(fall=0)``, no estimate condition, which the package's rules add), so that a rule of the energy's fall
alone can be judged for any threshold afterwards (the kept iterate is the last one, the energy falling at every
iteration). ``python operator_refine_falls.py RUN STEPS GRID OUT.npz [last]`` (``GRID`` 0: the training grid;
``last``: every iterate admitted, the estimate's fall too, so that each refined load's last iterate is scored, as
``operator_refine_drops.py`` judges the energy's fall alone, session 55)."""
import functools, sys, time
import numpy as np
from sciml import cases, load_run
from sciml.solvers.fno import data, estimate
folder, steps, grid, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
last = sys.argv[5:] == ["last"]
estimate.refine = functools.partial(estimate.refine, fall=0.0, **({"factor": np.inf} if last else {}))
cfg = cases.load(f"{folder}/config.yaml").config
grid = grid or cfg.data.resolution
split = data.Split(cfg.data.path, f"test/{grid}")
x, y = split.read(np.arange(len(split)))
run = load_run(folder)
norms = lambda a: np.linalg.norm(a[..., 0].reshape(len(a), -1), axis=1)
t0 = time.perf_counter()
after = run.predict(x, refine=steps, method="field")
t = time.perf_counter() - t0
before = run.predict(x, estimate=True)
e0, e1 = norms(before["prediction"] - y) / norms(y), norms(after["prediction"] - y) / norms(y)
np.savez(out, e0=e0, e1=e1, energy_before=after["energy_before"], energy=after["energy"], estimate=before["estimate"],
         estimate_after=after["estimate"], threshold=after["threshold"])
fall = (after["energy_before"] - after["energy"]) / np.abs(after["energy"])
print(f"{len(x)} loads at {grid}^2, {steps} iterations, {t / len(x):.2f} s per input; mean {e0.mean():.4g} -> {e1.mean():.4g}")
for thr in (0.0, 1e-7, 1e-6, 1e-5, 3e-5, 1e-4, 2e-4):
    kept = fall >= thr * 1.0
    got = np.where(kept, e1, e0)
    worse = got > e0 * (1 + 1e-3)
    print(f"  FALL {thr:g}: admitted {kept.sum()}, mean {got.mean():.4g}, worse {worse.sum()}"
          + (f" (largest {np.max(got / e0):.3f}, falls {fall[worse]})" if worse.any() else ""))
