# %% [markdown]
# # 03 · Navier–Stokes: Kovasznay flow and the lid-driven cavity
#
# Two steady 2D incompressible flows, each from a shipped case file. **Kovasznay flow** (Re = 40) has an exact
# solution, so every field is scored against it. The **lid-driven cavity** (Re = 100) has none; it is scored
# against the centreline tables of Ghia, Ghia & Shin (J. Comput. Phys. 48, 1982), packaged with sciml.
#
# Both cases train with the budgets of their case files (about five minutes each on a 2-core CPU). In small mode
# (`SCIML_NOTEBOOK_SMALL=1`, set by the tests) budgets, points and grids shrink so the notebook runs in about
# a minute; the errors are then larger, which is expected.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

import sciml
from sciml.equations.ns_checks import read_table

SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: a tiny budget
OUT = os.environ.get("SCIML_NOTEBOOK_OUT", "runs/notebooks")


def plot_loss(summary, title):
    """Each loss term of the run's metrics against the step: the Adam phase, then the quasi-Newton one."""
    m = sciml.load_run(summary["run_dir"]).metrics
    plt.figure(figsize=(6, 3.5))
    for key in [k for k in m if k.startswith("loss")]:
        plt.semilogy(m["step"], m[key], lw=2 if key == "loss" else 0.8, label=key)
    plt.xlabel("step")
    plt.legend(fontsize=6, ncol=2)
    plt.title(title)
    plt.show()


def read_fields(summary, names):
    """Grid coordinates and ``{field: (prediction, reference or None)}`` from the run's fields."""
    f = sciml.load_run(summary["run_dir"]).fields
    return f["x"], f["y"], {k: (f[k]["prediction"], f[k].get("reference")) for k in names}


# %% [markdown]
# ## Kovasznay flow
#
# The wake behind a grid: u = 1 − e^{λx} cos 2πy, v = λ/(2π) e^{λx} sin 2πy, p = (1 − e^{2λx})/2 with
# λ = Re/2 − √(Re²/4 + 4π²), on [−0.5, 1] × [−0.5, 1.5]. The velocity is given on the whole boundary from the
# exact solution; the pressure level is then free, so the pressure is compared up to a constant.

# %%
budget = (["training.adam.steps=100", "training.lbfgs.steps=150", "sampling.interior=500", "sampling.boundary=128",
           "model.hidden=[32, 32]", "evaluation.grid=[51,51]"] if SMALL else [])
case = sciml.load_case("kovasznay", budget)
print(case.config.equation)
kovasznay = sciml.run_case(case, out=os.path.join(OUT, "kovasznay"), quiet=True)
print(f"{kovasznay['steps']} steps in {kovasznay['wall_time_s']:.0f} s")
plot_loss(kovasznay, "Kovasznay: training loss")

# %% [markdown]
# **Velocity and pressure against the exact solution** on the evaluation grid (the pressure shifted by the
# constant that best matches the exact one).

# %%
X, Y, fields = read_fields(kovasznay, ("u", "v", "p"))
fig, axes = plt.subplots(3, 3, figsize=(11, 12))
for row, (name, (pred, ref)) in zip(axes, fields.items()):
    for ax, (title, data) in zip(row, [("PINN", pred), ("exact", ref), ("|error|", np.abs(pred - ref))]):
        im = ax.pcolormesh(X, Y, data, shading="auto")
        ax.set_aspect("equal")
        ax.set_title(f"{name} {title}")
        fig.colorbar(im, ax=ax, shrink=0.7)
plt.tight_layout()
plt.show()
for name in ("u", "v", "p", "velocity"):
    print(f"{name}: relative L2 error {kovasznay['metrics'][f'rel_l2_{name}']:.2e}")

# %% [markdown]
# ## Lid-driven cavity, Re = 100
#
# The unit square with its lid (y = 1) sliding at u = 1 and the other walls at rest. The network gives a
# stream function ψ and the pressure, with u = ψ_y and v = −ψ_x, so continuity holds exactly; the pressure is
# pinned at the middle of the bottom wall. The case's `checks: [ghia1982]` adds Ghia's errors to the summary.
# Where the lid meets the walls its speed jumps, and the flow there is singular; the case adds those two corner
# flows (Taylor's Stokes solutions, `equation.lid_corners`) to ψ and p, so the network learns the smooth rest.
# The case trains Adam, then a dense self-scaled BFGS (`training.lbfgs.method: bfgs`: the whole inverse Hessian
# of the network's parameters, far fewer steps to a low residual than L-BFGS). Small mode skips the Adam phase
# and takes a smaller network (a 2500 x 2500 matrix instead of the case's 8202 x 8202) for the few seconds it has.

# %%
budget = (["training.adam.steps=0", "training.lbfgs.steps=150", "sampling.interior=500", "sampling.boundary=128",
           "model.hidden=[32, 32]", "evaluation.grid=[51,51]"] if SMALL else [])
case = sciml.load_case("ldc", budget)
cavity = sciml.run_case(case, out=os.path.join(OUT, "ldc"), quiet=True)
print(f"{cavity['steps']} steps in {cavity['wall_time_s']:.0f} s")
print({k: round(v, 4) for k, v in cavity["metrics"].items()})
plot_loss(cavity, "lid-driven cavity: training loss")

# %% [markdown]
# **Centreline profiles**: u along the vertical line x = 0.5 and v along the horizontal line y = 0.5, read
# from the evaluation grid, with Ghia's points. The relative L2 errors are those of the summary, taken at
# Ghia's 15 interior points (the wall values are not scored).

# %%
X, Y, fields = read_fields(cavity, ("u", "v"))
i, j = np.argmin(np.abs(X[:, 0] - 0.5)), np.argmin(np.abs(Y[0] - 0.5))
assert abs(X[i, 0] - 0.5) < 1e-9 and abs(Y[0, j] - 0.5) < 1e-9, "the grid has no centreline: use odd sizes"
ghia_u, ghia_v = read_table("ghia1982_re100_u.csv"), read_table("ghia1982_re100_v.csv")
u, v = fields["u"][0], fields["v"][0]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
left.plot(u[i, :], Y[i, :], label="PINN")
left.plot(ghia_u["u"], ghia_u["y_exact"], "o", mfc="none", label="Ghia et al. 1982")
left.set(xlabel="u at x = 0.5", ylabel="y", title=f"u(0.5, y): rel-L2 {cavity['metrics']['ghia_u_rel_l2']:.2%}")
right.plot(X[:, j], v[:, j], label="PINN")
right.plot(ghia_v["x_exact"], ghia_v["v"], "o", mfc="none", label="Ghia et al. 1982")
right.set(xlabel="x", ylabel="v at y = 0.5", title=f"v(x, 0.5): rel-L2 {cavity['metrics']['ghia_v_rel_l2']:.2%}")
for ax in (left, right):
    ax.grid(alpha=0.3)
    ax.legend()
plt.show()

# %% [markdown]
# **The flow**: speed and streamlines. The primary vortex sits above the middle of the cavity, shifted in the
# direction the lid moves (Ghia et al. place its centre at about (0.62, 0.73)).

# %%
speed = np.hypot(u, v)
plt.figure(figsize=(5.5, 5))
plt.pcolormesh(X, Y, speed, shading="auto")
plt.colorbar(label="speed")
plt.streamplot(X[:, 0], Y[0], u.T, v.T, color="w", linewidth=0.6, density=1.4)
plt.gca().set_aspect("equal")
plt.title("lid-driven cavity, Re = 100")
plt.show()
