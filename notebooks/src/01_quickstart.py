# %% [markdown]
# # 01 · Quickstart: a Kirchhoff plate in a few lines
#
# A simply supported 2 m × 3 m steel plate carries a sinusoidal load; its deflection obeys D Δ²w = q
# (4th order). We load the shipped case `plate` (the file `cases/plate.yaml`), override a few values, train a
# physics-informed network, read the run back and compare deflection and bending moments with the exact solution.
# The notebook runs from any folder: a case's name finds the file installed with sciml.

# %%
import json
import os

import matplotlib.pyplot as plt
import numpy as np

import sciml

SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: a tiny budget
OUT = os.environ.get("SCIML_NOTEBOOK_OUT", "runs/notebooks")

# %% [markdown]
# **Load the case and override values**, exactly as `sciml run plate key=value` would (`sciml cases` lists the
# shipped cases; a path to a YAML file, a dict or YAML text work as well).
# `sciml show` (or printing the config) gives the resolved settings.

# %%
budget = (["training.adam.steps=200", "training.lbfgs.steps=100", "sampling.interior=500", "evaluation.grid=[41,61]",
           "model.hidden=[20, 20]"] if SMALL else ["training.adam.steps=2000", "training.lbfgs.steps=2000"])
case = sciml.load_case("plate", budget)
print(case.config.equation)
print(case.config.training)

# %% [markdown]
# **Train.** The run folder gets the resolved config, metrics, checkpoints, fields, plots and a summary.

# %%
summary = sciml.run_case(case, out=os.path.join(OUT, "quickstart"), quiet=True)
print(json.dumps(summary["metrics"], indent=2))
print(f"{summary['steps']} steps in {summary['wall_time_s']:.0f} s")

# %% [markdown]
# **Read the run back** with `sciml.load_run`: its summary, the metrics table (`metrics.csv`, one array per
# column), the fields (`fields.h5`) and the trained model. First the loss history: the Adam phase, then L-BFGS.

# %%
run = sciml.load_run(summary["run_dir"])
m = run.metrics
plt.figure(figsize=(6, 3.5))
for key in [k for k in m if k.startswith("loss")]:
    plt.semilogy(m["step"], m[key], lw=2 if key == "loss" else 0.8, label=key)
plt.xlabel("step")
plt.legend(fontsize=6, ncol=2)
plt.title("training loss")
plt.show()

# %% [markdown]
# **Deflection and moments against the exact solution**, from the run's fields.

# %%
f = run.fields
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

# %% [markdown]
# **The trained model anywhere**: `run.predict` takes points in metres and gives every field. Here the
# deflection along the plate's middle line, densely, with the exact values of the evaluation grid as circles.

# %%
j = X.shape[1] // 2
xs = np.linspace(X.min(), X.max(), 400)
line = run.predict(np.stack([xs, np.full_like(xs, Y[0, j])], axis=1))
plt.figure(figsize=(6, 3.5))
plt.plot(xs, line["w"], label="PINN (run.predict)")
plt.plot(X[:, j], f["w"]["reference"][:, j], "o", mfc="none", label="exact")
plt.xlabel("x (m)")
plt.ylabel("w (m)")
plt.title(f"deflection along y = {Y[0, j]:.2f} m")
plt.legend()
plt.show()
