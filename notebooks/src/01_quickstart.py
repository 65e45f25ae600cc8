# %% [markdown]
# # 01 · Quickstart: a Kirchhoff plate in a few lines
#
# A simply supported 2 m × 3 m steel plate carries a sinusoidal load; its deflection obeys D Δ²w = q
# (4th order). We load the case file `cases/plate.yaml`, override a few values, train a physics-informed
# network, and compare deflection and bending moments with the exact solution.

# %%
import json
import os

import matplotlib.pyplot as plt
import numpy as np

import sciml

SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: a tiny budget
OUT = os.environ.get("SCIML_NOTEBOOK_OUT", "runs/notebooks")

# %% [markdown]
# **Load the case and override values**, exactly as `sciml run cases/plate.yaml key=value` would.
# `sciml show` (or printing the config) gives the resolved settings.

# %%
budget = (["training.adam.steps=200", "training.lbfgs.steps=100", "sampling.interior=500", "evaluation.grid=[41,61]"]
          if SMALL else ["training.adam.steps=2000", "training.lbfgs.steps=2000"])
case = sciml.load_case("cases/plate.yaml", budget)
print(case.config.equation)
print(case.config.training)

# %% [markdown]
# **Train.** The run folder gets the resolved config, metrics, checkpoints, fields, plots and a summary.

# %%
summary = sciml.run_case(case, out=os.path.join(OUT, "quickstart"), quiet=True)
print(json.dumps(summary["metrics"], indent=2))
print(f"{summary['steps']} steps in {summary['wall_time_s']:.0f} s")

# %% [markdown]
# **Loss history** from `metrics.csv`: the Adam phase, then L-BFGS.

# %%
import csv

with open(os.path.join(summary["run_dir"], "metrics.csv")) as fh:
    rows = list(csv.DictReader(fh))
steps = [int(r["step"]) for r in rows]
plt.figure(figsize=(6, 3.5))
for key in [k for k in rows[0] if k.startswith("loss")]:
    plt.semilogy(steps, [float(r[key]) for r in rows], lw=2 if key == "loss" else 0.8, label=key)
plt.xlabel("step")
plt.legend(fontsize=6, ncol=2)
plt.title("training loss")
plt.show()

# %% [markdown]
# **Deflection and moments against the exact solution**, from `fields.h5`.

# %%
f = sciml.read_fields(summary["run_dir"])
X, Y = f["x"], f["y"]
fields = {k: (f[k]["prediction"], f[k]["reference"]) for k in ("w", "mx", "my")}

fig, axes = plt.subplots(3, 3, figsize=(11, 10))
for row, (name, (pred, ref)) in zip(axes, fields.items()):
    for ax, (title, data) in zip(row, [("prediction", pred), ("exact", ref), ("|error|", np.abs(pred - ref))]):
        im = ax.pcolormesh(X, Y, data, shading="auto")
        ax.set_aspect("equal")
        ax.set_title(f"{name} {title}")
        fig.colorbar(im, ax=ax, shrink=0.7)
plt.tight_layout()
plt.show()
for name, (pred, ref) in fields.items():
    print(f"{name}: relative L2 error {np.linalg.norm(pred - ref) / np.linalg.norm(ref):.2e}")
