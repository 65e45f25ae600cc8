# %% [markdown]
# # 07 · Inverse and parametric plates: a stiffness with its interval, what the data cannot fix, a family
#
# A PINN answers more than the forward question. Here, on the simply supported 2 m × 3 m steel plate of
# `plate.yaml` (D = 17 945 N m, a sinusoidal load of peak 980 Pa):
#
# 1. **identify** the flexural rigidity D from 25 deflection sensors with 1 % noise, with a **95 % interval**
#    from an ensemble of networks, each fitting its own bootstrap resample of the readings;
# 2. ask for D and the load's peak q0 together: deflections fix only q0 / D, and the solver says so instead of
#    printing two numbers;
# 3. **locate a damaged zone** (D 30 % lower in a disc) from 100 sensors, D(x, y) a second network;
# 4. train **one network for a family** of plates (aspect ratio b/a from 1 to 3) and query it at ratios it was
#    not scored at, against Navier's series.
#
# Every truth here is known: `sciml datagen` makes the sensor readings from the series, and training never
# reads the equation section's D (it starts from `unknowns.D.initial`).

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

import sciml
from sciml.equations.plate_reference import navier_plate

SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: a tiny budget
OUT = os.environ.get("SCIML_NOTEBOOK_OUT", "runs/notebooks")

# %% [markdown]
# **The readings.** `plate_identify` places 25 sensors on a 5 × 5 grid inside the plate and adds Gaussian noise
# of 1 % of the deflections' rms; `sciml datagen` writes them to a CSV (here into this notebook's folder).

# %%
small = ["training.adam.steps=100", "training.lbfgs.steps=100", "sampling.interior=200", "training.log_every=50",
         "evaluation.grid=[21,31]", "model.hidden=[20, 20]"] if SMALL else []
adam_only = ["training.lbfgs.steps=0"] if SMALL else []  # small mode, where a cell only shows a feature: one compile
data = [f"data.path={OUT}/plate_sensors.csv"]
case = sciml.load_case("plate_identify", [*data, *small])
sciml.datagen_case(case, force=True)
readings = np.genfromtxt(f"{OUT}/plate_sensors.csv", delimiter=",", names=True)
truth = case.config.equation.D
print(f"{len(readings)} readings; the truth D = {truth:.1f} N m, the case starts training from "
      f"{case.config.unknowns['D'].initial:.0f}")

# %% [markdown]
# **D with an interval.** `ensemble: {members: 8, start: trained}` trains one network (the case's Adam and L-BFGS
# phases), then eight members go on from it for 300 L-BFGS steps, each on its own resample (with replacement) of
# the 25 readings, all in one `jit`. The spread of their D is the bootstrap's: the 95 % interval is the mean ±
# t(0.975, 7) × their standard deviation. Measured over 20 sets of readings with fresh noise, it held the truth
# 19 times (README, `sciml.bench.studies.ensemble_coverage`), at 2.2× the time of one network.

# %%
members = 3 if SMALL else 8
spread = f"ensemble={{members: {members}, start: trained, steps: {20 if SMALL else 300}}}"
summary = sciml.run_case(sciml.load_case("plate_identify", [*data, *small, *adam_only, spread]),
                         out=os.path.join(OUT, "identify"), quiet=True)
d = summary["ensemble"]["unknowns"]["D"]
lo, hi = d["interval_95"]
print(f"D = {d['mean']:.1f} N m ± {d['std']:.1f} (std of {members} members); 95 % interval [{lo:.1f}, {hi:.1f}]; "
      f"truth {truth:.1f}: error {abs(d['mean'] - truth) / truth:.2%}, "
      f"{'inside' if d['covers'] else 'outside'} the interval; {summary['wall_time_s']:.0f} s")

fig, ax = plt.subplots(figsize=(7, 2.4))
ax.axvspan(lo, hi, alpha=0.25, label="95 % interval")
ax.plot(d["members"], np.zeros(members), "o", label="members")
ax.axvline(d["mean"], color="C0", label="mean")
ax.axvline(truth, color="k", ls="--", label="truth")
ax.set_yticks([])
ax.set_xlabel("D [N m]")
ax.legend(ncol=4, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 1.35))
plt.show()

# %% [markdown]
# The fields are the members' mean, and `fields.h5` holds their standard deviation beside it. Along the plate's
# middle: the deflection with its band, and the error of the mean against the series inside the same band.

# %%
run = sciml.load_run(summary["run_dir"])
f = run.fields
j = f["x"].shape[1] // 2
x, w, s, ref = f["x"][:, j], f["w"]["prediction"][:, j], f["w"]["std"][:, j], f["w"]["reference"][:, j]
fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.5))
a1.fill_between(x, 1e3 * (w - 1.96 * s), 1e3 * (w + 1.96 * s), alpha=0.3, label="mean ± 1.96 std")
a1.plot(x, 1e3 * w, label="ensemble mean")
a1.plot(x, 1e3 * ref, "k--", label="series")
a1.set(xlabel="x [m]", ylabel="w [mm]", title=f"w along x at y = {f['y'][0, j]:.2f} m")
a1.legend(fontsize=8)
a2.fill_between(x, -1.96e6 * s, 1.96e6 * s, alpha=0.3, label="± 1.96 std")
a2.plot(x, 1e6 * (w - ref), label="mean − series")
a2.set(xlabel="x [m]", ylabel="error [µm]", title="the error of the mean and the band")
a2.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# **What the data cannot fix.** With the load's peak unknown as well, a plate twice as stiff under twice the
# load bends the same: the readings fix only q0 / D. The solver tests this at the end (the Gauss–Newton matrix of
# the loss in the unknowns' logs, network held fixed, is singular along q0 / D) and reports both as not
# identifiable, with the matrix's eigenvalues.

# %%
# q0 / D is singular for any network, trained or not: small mode trains it with Adam alone
both = sciml.run_case(sciml.load_case("plate_identify", [*data, *small, *adam_only,
                                                         "unknowns.q0={initial: 500, bounds: [10, 10000]}"]),
                      out=os.path.join(OUT, "identify_both"), quiet=True)
print("unknowns:", both["unknowns"])
print("eigenvalues:", [f"{e:.3g}" for e in both["identifiability"]["fisher_eigenvalues"]])

# %% [markdown]
# **Locating damage.** `plate_damage` gives the plate a disc of radius 0.3 m at (1.3, 1.9) m where D is 30 %
# lower, and makes D(x, y) a second small network fitted with the deflection to 100 sensors at 1 % noise. An
# L1 prior (`unknowns.D.field.sparsity`) favours a field equal to the nominal D in most places. The summary
# reports the zone it finds: the centre of the low-stiffness region and how deep it is. With the case's own
# budget (about 140 s) the centre lands 3 % of the plate's side from the truth. The depth is not fixed by the
# readings while the zone's size is unknown: a shallower, wider zone bends the plate alike (README, study
# `damage_identifiability`), and the fitted drop is about 23 % for 30 %.

# %%
dbudget = ["training.adam.steps=50", "training.lbfgs.steps=0", "sampling.interior=300", "training.log_every=50",
           "evaluation.grid=[21,31]", "model.hidden=[20, 20]"] if SMALL else []  # small: Adam alone, one compile
dcase = sciml.load_case("plate_damage", [f"data.path={OUT}/damage_sensors.csv", *dbudget])
sciml.datagen_case(dcase, force=True)
damage = sciml.run_case(dcase, out=os.path.join(OUT, "damage"), quiet=True)
zone, true_zone = damage["fields"]["D"]["zone"], damage["fields"]["D"]["truth"]
print(f"zone found at ({zone['centre'][0]:.2f}, {zone['centre'][1]:.2f}) m, truth ({true_zone['centre'][0]}, "
      f"{true_zone['centre'][1]}) m: {damage['metrics']['damage_centre_error']:.1%} of the side off; drop "
      f"{zone['drop']:.0%} for {true_zone['drop']:.0%}; {damage['wall_time_s']:.0f} s")
fd = sciml.load_run(damage["run_dir"]).fields
fig, axes = plt.subplots(1, 2, figsize=(9, 4.5))
for ax, which in zip(axes, ["reference", "prediction"]):
    im = ax.contourf(fd["x"], fd["y"], fd["D"][which] / dcase.config.equation.D, 20, cmap="viridis")
    ax.add_patch(plt.Circle(true_zone["centre"], dcase.config.equation.damage.radius, fill=False, ls="--", color="w"))
    ax.plot(*zone["centre"], "r+", ms=14, mew=2, label="centre found")
    ax.set(aspect="equal", xlabel="x [m]", ylabel="y [m]", title=f"D / D_nominal: {which}")
    fig.colorbar(im, ax=ax, shrink=0.8)
axes[1].legend(fontsize=8, loc="lower left")
plt.tight_layout()
plt.show()

# %% [markdown]
# **A family.** `plate_family` makes the aspect ratio b/a a network input: the plate is [0, 1] × [0, b/a] under
# a uniform load, sampled over b/a ∈ [1, 3] with the collocation points. Its summary scores Timoshenko's centre
# coefficients α = w D / (q a⁴), β = M_x / (q a²), β₁ = M_y / (q a²) at the listed ratios; the trained network
# also answers any other ratio of the range (`run.predict` takes b/a as a third column after the geometry's x, y
# in [0, 1]², whose y the plate stretches to [0, b/a]; it refuses a ratio outside the range). The budget below is a shortened one (the case's own, 1500 Adam + 6000 L-BFGS steps, meets 1 % at
# all 11 listed ratios: README).

# %%
budget = (["training.adam.steps=100", "training.lbfgs.steps=0", "sampling.interior=300", "training.log_every=50",
           "parameters.aspect.values=[1, 2, 3]", "evaluation.grid=[21,21]", "evaluation.every=0",
           "model.hidden=[32, 32]"] if SMALL
          else ["training.lbfgs.steps=2000", "evaluation.every=0"])
family = sciml.run_case(sciml.load_case("plate_family", budget), out=os.path.join(OUT, "family"), quiet=True)
for row in family["family"]:
    print(f"b/a = {row['aspect']:.1f}: alpha error {row['metrics']['center_w_err']:.2%}")
print(f"{family['wall_time_s']:.0f} s")

# %% [markdown]
# At ratios between the scored ones, the centre deflection from the network against the series:

# %%
fam = sciml.load_run(family["run_dir"])
eq = sciml.load_case("plate_family").config.equation
D = eq.E * eq.thickness**3 / (12 * (1 - eq.nu**2))
ratios = np.array([1.1, 1.5, 1.9, 2.5, 2.9])
alpha_net = np.array([fam.predict(np.array([[0.5, 0.5, r]]))["w"][0] for r in ratios]) * D / eq.load
alpha_ref = np.array([navier_plate(((0, 1), (0, r)), D, eq.nu, eq.load, 0.5, 0.5 * r)["w"] for r in ratios]) \
    * D / eq.load
for r, a_n, a_r in zip(ratios, alpha_net, alpha_ref):
    print(f"b/a = {r:.1f}: alpha {a_n:.6f} (network) vs {float(a_r):.6f} (series): {abs(a_n - a_r) / a_r:.2%}")
grid = np.linspace(1, 3, 41)
plt.figure(figsize=(6, 3.5))
plt.plot(grid, [navier_plate(((0, 1), (0, r)), D, eq.nu, eq.load, 0.5, 0.5 * r)["w"] * D / eq.load for r in grid],
         "k-", lw=1, label="Navier series")
plt.plot(ratios, alpha_net, "o", label="one network, new ratios")
plt.xlabel("b/a")
plt.ylabel("α = w_centre D / (q a⁴)")
plt.legend()
plt.show()
