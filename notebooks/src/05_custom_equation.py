# %% [markdown]
# # 05 · Your own equation: the heat equation in a few lines
#
# sciml's equations are small Python classes: residuals written over derivative lookups such as `d["u_xx"]`.
# Here we define a PDE the package does not ship, the time-dependent 1D heat equation (the shipped `heat` is
# steady conduction)
#
# u_t = k u_xx on x ∈ [0, 1], t ∈ [0, 1], with u(x, 0) = sin(πx) and u(0, t) = u(1, t) = 0,
#
# whose exact solution is u = e^{−kπ²t} sin(πx). We register it with `sciml.equations.register`, write a case
# for it as a YAML string, train it like any shipped case and compare with the exact solution. Nothing in the
# package is edited.

# %%
import os
from dataclasses import dataclass
from typing import Literal

import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np

import sciml
import sciml.equations
from sciml.config import spec
from sciml.errors import ConfigError

SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: a tiny budget
OUT = os.environ.get("SCIML_NOTEBOOK_OUT", "runs/notebooks")

# %% [markdown]
# **The equation** is two pieces. A config dataclass is the schema of the case file's `equation` section
# (its `type` names the equation; the other fields are its parameters, validated with their bounds). An
# equation class, a subclass of `sciml.equations.Equation` built from that config and the domain, names its
# fields and coordinates, maps physical points to the network's inputs and back (`to_nondim`, `to_physical`),
# and gives the residuals: `interior` inside the domain and `boundary` on each named part of its boundary (an
# empty dict leaves a part free). `register` refuses a class that leaves one of these out, naming it. The
# rest are hooks with defaults: `derived` (the fields reported; default the network's), `reference`
# (default none), point sets, periodic pairs, checks. The solver collects the derivatives the residuals ask
# for and computes them all in one Taylor-mode pass.
#
# sciml's rectangle has axes x and y; our equation calls the second one t (`coords = ("x", "t")`), so
# `d["u_t"]` is the derivative along it and the bottom edge is the initial time.

# %%
@dataclass
class HeatConfig:
    """Case-file section ``equation`` for ``type: heat_1d``."""

    type: Literal["heat_1d"]
    k: float = spec(0.1, gt=0.0, help="diffusivity")


class Heat(sciml.equations.Equation):
    """u_t = k u_xx; u(x, 0) = sin(πx) on the part ``initial``, u = 0 on the part ``ends``."""

    fields = ("u",)
    coords = ("x", "t")

    def __init__(self, config, domain):
        self.k = config.k

    def to_nondim(self, points):  # the inputs already lie in [0, 1]: no scaling needed
        return points

    def to_physical(self, points):
        return points

    def interior(self, d):
        return {"heat": d["u_t"] - self.k * d["u_xx"]}

    def boundary(self, part, d, normal):
        if part == "initial":
            return {"u": d["u"] - jnp.sin(jnp.pi * d.x)}
        if part == "ends":
            return {"u": d["u"]}
        return {}  # the final time is free

    def reference(self, points):  # compared with the derived fields (by default the network's: u)
        x, t = points[:, 0], points[:, 1]
        return {"u": np.exp(-self.k * np.pi**2 * t) * np.sin(np.pi * x)}


sciml.equations.register("heat_1d", HeatConfig, Heat)

# %% [markdown]
# **The case**, as a YAML string handed to `sciml.load_case` (a file's path or a dict work too): the same format
# as `cases/*.yaml`, and the same `key=value` overrides apply. A typo (say `equation.kk`) gets the usual one-line
# error naming the key.

# %%
CASE = """
case: heat
solver: pinn
seed: 0
dtype: float64
geometry:
  type: rectangle
  x: [0.0, 1.0]
  y: [0.0, 1.0]          # the equation reads this axis as time t
  parts: {initial: [bottom], ends: [left, right]}
equation: {type: heat_1d, k: 0.1}
model: {type: mlp, hidden: [32, 32, 32], activation: tanh}
sampling: {interior: 2000, boundary: 200, method: sobol}
training:
  adam: {steps: 2000, lr: 1.0e-3}
  lbfgs: {steps: 1000, memory: 50}
  log_every: 100
evaluation: {grid: [101, 101]}
"""
budget = ["training.adam.steps=300", "training.lbfgs.steps=300", "sampling.interior=500",
          "evaluation.grid=[51,51]"] if SMALL else []
case = sciml.load_case(CASE, budget)
print(case.config.equation)
try:
    sciml.load_case(CASE, ["equation.kk=1"])
except ConfigError as e:
    print("error:", e)

# %% [markdown]
# **Train.** The loss terms are named after the residuals: `heat` inside, `initial.u` and `ends.u` on the parts.

# %%
summary = sciml.run_case(case, out=os.path.join(OUT, "heat"), quiet=True)
print(f"{summary['steps']} steps in {summary['wall_time_s']:.0f} s; relative L2 error of u: "
      f"{summary['metrics']['rel_l2_u']:.2e}")

run = sciml.load_run(summary["run_dir"])
plt.figure(figsize=(6, 3.5))
for key in [k for k in run.metrics if k.startswith("loss")]:
    plt.semilogy(run.metrics["step"], run.metrics[key], lw=2 if key == "loss" else 0.8, label=key)
plt.xlabel("step")
plt.legend(fontsize=7)
plt.title("training loss")
plt.show()

# %% [markdown]
# **Prediction against the exact solution** over the whole space-time rectangle, and in slices at a few times.

# %%
f = run.fields
X, T = f["x"], f["y"]
pred, exact = f["u"]["prediction"], f["u"]["reference"]

fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
fig.suptitle(f"relative L2 error over space-time: {summary['metrics']['rel_l2_u']:.2e}")
for ax, (title, data) in zip(axes, [("PINN", pred), ("exact", exact), ("|error|", np.abs(pred - exact))]):
    im = ax.pcolormesh(X, T, data, shading="auto")
    ax.set(xlabel="x", ylabel="t", title=f"u {title}")
    fig.colorbar(im, ax=ax)
plt.show()

plt.figure(figsize=(6, 3.8))
for t in (0.0, 0.5, 1.0):
    j = np.argmin(np.abs(T[0] - t))
    line, = plt.plot(X[:, j], pred[:, j], label=f"PINN, t = {T[0, j]:.2f}")
    plt.plot(X[:, j], exact[:, j], "o", ms=3, mfc="none", color=line.get_color())
plt.xlabel("x")
plt.ylabel("u")
plt.title("slices in time (circles: exact)")
plt.legend()
plt.show()
