"""The clamped run's smooth loads of the study (all but the patches, whose reference is not trusted) at 33² by their
work values: rel-L2 of w and of the moments M_x / M_y / M_xy against the finite-difference reference
(``random_loads.clamped``), trained (``derived``) -> refined (``predict(x, refine=200)``), mean per kind (issue 72,
docs/notes/operator_estimate.md, 2026-12-04). ``python operator_refine_clamped_moments.py RUN``."""
import sys
import time, numpy as np
from sciml import load_run
from sciml.equations.plate_reference import ood_loads, random_loads
s = 33; grid = np.linspace(0, 1, s)
items = ood_loads.loads(s, sampling="work"); drawn = ood_loads.drawn()
keep = [i for i, it in enumerate(items) if not it[0].startswith("patch")]
x = np.stack([items[i][2] for i in keep])[..., None].astype(np.float32)
kinds = [items[i][0] for i in keep]
ref = [random_loads.clamped(drawn[i][2], grid) for i in keep]
run = load_run(sys.argv[1])
before = run.derived(x)
t = time.perf_counter(); after = run.predict(x, refine=200); t = time.perf_counter() - t
print(f"{len(x)} loads, {t / len(x):.1f} s per input")
r = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)
for k in dict.fromkeys(kinds):
    idx = [j for j, kk in enumerate(kinds) if kk == k]
    row = []
    for name in ("w", "mx", "my", "mxy"):
        b = np.mean([r((run.predict(x[j:j+1])["prediction"] if name == "w" else before[name][j:j+1])[0, ..., 0], ref[j][name]) for j in idx])
        a = np.mean([r((after["prediction"] if name == "w" else after[name])[j, ..., 0], ref[j][name]) for j in idx])
        row.append(f"{b:.3f} -> {a:.4f}")
    print(k, " | ".join(row), flush=True)
