"""Issue 72's goal "refinement never makes an in-distribution prediction worse": the refinement of ``sciml predict
RUN --refine STEPS`` (``load_run(RUN).predict(x, refine=STEPS)``) over a run's test set at its training grid,
the true error of each sample before and after (worse, better: by more than 0.1 %; a load left as trained differs
by float32 round-off, one input against a batch).
``python operator_refine_test_set.py RUN [STEPS] [N] [S] [LR] [METHOD] [SET]`` (``S``: the test set of that grid,
one of the run's ``data.resolutions``; default, or 0, the training grid; ``LR``: the refinement's first learning
rate, default, or 0, ``predict``'s; ``METHOD``: ``weights`` or ``field``, default, or ``default``, ``predict``'s;
``SET``: ``test``, the default, or ``fresh``, the 50 ``grf`` draws of session 43, ``ood_loads.loads(S, seed=2,
grf=50, patches=0, modes=())``, given by their values at the points, against Navier's series: simply supported
plates only)."""
import sys
import time

import numpy as np

from sciml import cases, load_run
from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.fno import data

folder = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
cfg = cases.load(f"{folder}/config.yaml").config
grid = int(sys.argv[4]) if len(sys.argv) > 4 and int(sys.argv[4]) else cfg.data.resolution
rate = {"lr": float(sys.argv[5])} if len(sys.argv) > 5 and float(sys.argv[5]) else {}
if len(sys.argv) > 6 and sys.argv[6] != "default":
    rate["method"] = sys.argv[6]
which = sys.argv[7] if len(sys.argv) > 7 else "test"
if which == "test":
    split = data.Split(cfg.data.path, f"test/{grid}")
    n = int(sys.argv[3]) if len(sys.argv) > 3 and int(sys.argv[3]) else len(split)
    x, y = split.read(np.arange(n))
else:
    points = np.linspace(0.0, 1.0, grid)
    drawn = [(q, random_loads.solution(c, points)["w"])
             for kind, c, q in ood_loads.loads(grid, seed=2, grf=50, patches=0, modes=()) if kind == "grf"]
    n = int(sys.argv[3]) if len(sys.argv) > 3 and int(sys.argv[3]) else len(drawn)
    x = np.stack([q for q, _ in drawn[:n]])[..., None].astype(np.float32)
    y = np.stack([w for _, w in drawn[:n]])[..., None]
run = load_run(folder)
norms = lambda a: np.linalg.norm(a[..., 0].reshape(n, -1), axis=1)
error = lambda p: norms(p - y) / norms(y)
before = run.predict(x, estimate=True)
t0 = time.perf_counter()
after = run.predict(x, refine=steps, **rate)
t = time.perf_counter() - t0
e0, e1 = error(before["prediction"]), error(after["prediction"])
label = (f", lr {rate['lr']:g}" if "lr" in rate else "") + (f", method {rate['method']}" if "method" in rate else "")
print(f"{n} {which} samples at {grid}^2, {steps} steps{label}, {t:.1f} s ({t / n:.2f} s per input, compiling included)")
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
changed = after["energy"] != after["energy_before"]  # a kept iterate: its energy's fall as a share of its size
falls = (after["energy_before"] - after["energy"]) / np.abs(after["energy"])
print(f"refined {int(np.sum(after['refine_steps'] > 0))}, kept an iterate {int(changed.sum())}; the smallest energy "
      f"fall of a kept iterate {np.min(falls[changed], initial=np.inf):.3g}"
      + (f" (#{np.flatnonzero(changed)[np.argmin(falls[changed])]})" if changed.any() else ""))
