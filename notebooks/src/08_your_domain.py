# %% [markdown]
# # 08 · Your own domain: a plate on a polygon, a part read from a mesh file, heat in it
#
# A PINN's domain is the case file's `geometry` section. Besides rectangles, boxes, disks and balls it may be
# **any simple polygon with holes** (`type: polygon`, edges named by index or by `names`) or **the inside of a
# closed triangle mesh** read from an STL or OBJ file (`type: mesh`, faces named by their normal or a region).
# Where the equation has no series on such a shape, the run's reference is a **classical solver on the same
# shape**: finite elements for a plate on a polygon or for heat in a meshed part. This notebook poses both, draws
# them with their named boundary parts, and trains the plate and the part's temperature against their
# finite-element references. The guide page "Your own domain" has every key.

# %%
import os

import matplotlib.pyplot as plt
import numpy as np

import sciml
from sciml.config import build
from sciml.solvers.pinn.geometry import MeshConfig, build_geometry

SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: a tiny budget
OUT = os.environ.get("SCIML_NOTEBOOK_OUT", "runs/notebooks")

# %% [markdown]
# **An L-shaped steel plate**, 1 m × 1 m less its upper right quarter, simply supported on its outer edges and
# clamped along the two edges of the re-entrant corner, under a uniform 1 kPa load. The polygon's edges run
# from vertex `i` to `i + 1`; `names` groups them into the parts `outer` and `inner`, which the equation's
# `edges` map to their conditions.
#
# The plate is posed in its **energy form** (`form: energy`: the mean of the total potential energy's density over
# points drawn anew each step, second derivatives instead of the plate equation's fourth), its edges' `w` (and the
# clamped edges' slope) **exact** through distance functions (`conditions.enforce`), and the re-entrant corner's
# **singular function** in the exact factor (`singular_corners`: the deflection there grows as `r^1.54`, which a
# smooth network times the edges' factors cannot take).

# %%
plate = {
    "case": "l_plate",
    "solver": "pinn",
    "seed": 0,
    "dtype": "float64",
    "geometry": {"type": "polygon", "vertices": [[0, 0], [1, 0], [1, 0.5], [0.5, 0.5], [0.5, 1], [0, 1]],
                 "names": ["outer", "outer", "inner", "inner", "outer", "outer"]},
    "equation": {"type": "kirchhoff_plate", "E": 201880.0e6, "nu": 0.25, "thickness": 0.01, "load": 1000.0,
                 "edges": {"outer": "simply_supported", "inner": "clamped"}, "form": "energy",
                 "singular_corners": True},
    "conditions": {"enforce": {"outer": "exact", "inner": "exact"}, "length": 0.1},
    "model": {"hidden": [20, 20, 20, 20, 20], "activation": "tanh"},
    "sampling": {"interior": 32000, "resample_every": 1, "method": "sobol"},
    "training": {"adam": {"steps": 2000, "lr": 1.0e-3, "schedule": {"type": "exponential", "decay": 0.9,
                                                                     "every": 1000}},
                 "lbfgs": {"steps": 4000, "memory": 20, "resample_every": 1000}, "log_every": 100},
    "evaluation": {"grid": [101, 101]},
}
budget = (["model.hidden=[10, 10]", "sampling.interior=400", "training.adam.steps=200", "training.lbfgs.steps=0",
           "evaluation.grid=[31, 31]", "evaluation.rtol=1e-2"] if SMALL else [])  # small: Adam alone, one compile
case = sciml.load_case(plate, budget)

# %% [markdown]
# **The domain and its parts**, as the run samples them: interior points, and boundary points on each part
# with their outward normals (the arrows).

# %%
domain = build_geometry(case.config.geometry)
rng = np.random.default_rng(0)
inside = domain.interior(400, rng, "uniform")
plt.figure(figsize=(4.5, 4.5))
plt.plot(inside[:, 0], inside[:, 1], ".", ms=2, color="0.7", label="interior")
for part, colour in zip(domain.parts, ("C0", "C3")):
    pts, normals = domain.boundary(part, 40, rng, "uniform")
    plt.quiver(pts[:, 0], pts[:, 1], normals[:, 0], normals[:, 1], color=colour, scale=25, width=0.004, label=part)
plt.gca().set_aspect("equal")
plt.legend(loc="upper right", fontsize=8)
plt.title("the L-shaped plate: parts and outward normals")
plt.show()

# %% [markdown]
# **Train.** The equation has no series on a polygon, so the run builds its reference by finite elements on the
# same polygon (scikit-fem's Argyris element on Triangle meshes graded toward the re-entrant corner, refined until
# the deflection changes by less than `evaluation.rtol`), and says how in the summary's `reference`.

# %%
summary = sciml.run_case(case, out=os.path.join(OUT, "your_domain"), quiet=True)
print("reference:", summary["reference"])
print({k: f"{v:.3e}" for k, v in summary["metrics"].items() if k.startswith("rel_l2")})

# %% [markdown]
# **The deflection against the finite elements**, on the evaluation grid's points inside the polygon (the
# reference is NaN outside; the network answers there too, and is masked here). The re-entrant corner makes the
# moments singular; with its singular function in the exact factor the shipped all-clamped L
# (`cases/plate_l_clamped.yaml`, this budget) reaches rel-L2(w) 4.8e-3 and moments within 2.8 % away from the
# corner (the guide page "Your own domain" has the measurements); the small budget of a CI run is far from it.

# %%
run = sciml.load_run(summary["run_dir"])
f = run.fields
X, Y = f["x"], f["y"]
ref = f["w"]["reference"]
pred = np.where(np.isfinite(ref), f["w"]["prediction"], np.nan)
fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
for ax, (title, data) in zip(axes, [("PINN", pred), ("finite elements", ref), ("|error|", np.abs(pred - ref))]):
    im = ax.pcolormesh(X, Y, data, shading="auto")
    ax.set_aspect("equal")
    ax.set_title(f"w, {title}")
    fig.colorbar(im, ax=ax, shrink=0.8)
plt.tight_layout()
plt.show()
inside = np.isfinite(ref)
print(f"relative L2 error of w inside: {np.linalg.norm((pred - ref)[inside]) / np.linalg.norm(ref[inside]):.2e}")

# %% [markdown]
# **A part from a mesh file.** The shipped case `beltrami_bracket` trains a flow inside an L-shaped bracket read
# from `cases/parts/bracket.stl` (`geometry: {type: mesh, path: ..., scale: ...}`; trimesh reads it and checks it
# is closed and consistently wound). Faces are named by selectors under `select`: `{normal: [0, 0, 1], angle: 10}`
# takes the faces whose outward normal is within 10° of +z, `{where: "x < 0.01"}` those whose centroid satisfies
# the expression; faces no selector takes form the part `surface`. Here the bracket's space (the case adds a
# time axis) with its top faces and its faces at x = 0 named, as a case's `geometry` section would name them
(built here from the section alone), and sampled as a run samples them.

# %%
section = {"type": "mesh", "path": "cases/parts/bracket.stl", "scale": 0.05,  # the shipped file, from any folder
           "select": {"top": {"normal": [0, 0, 1], "angle": 10}, "end": {"where": "x < 0.01"}}}
part_domain = build_geometry(build(MeshConfig, section))
print("parts:", part_domain.parts)
ax = plt.figure(figsize=(6, 5)).add_subplot(projection="3d")
for i, part in enumerate(part_domain.parts):
    pts, _ = part_domain.boundary(part, 300, rng, "uniform")
    ax.scatter(pts[:, 0], pts[:, 1], pts[:, 2], s=2, color=f"C{i}", label=part)
inside = part_domain.interior(300, rng, "uniform")
ax.scatter(inside[:, 0], inside[:, 1], inside[:, 2], s=1, color="0.6", label="interior")
ax.legend(fontsize=7)
ax.set_title("the bracket: named faces and interior points")
plt.show()

# %% [markdown]
# **Heat in a part, against finite elements.** The shipped case `heat_bracket` solves steady heat conduction
# −k Δu = 0 inside the filleted bracket `cases/parts/bracket_fillet.stl`: its face at y = 2 (named `hot` by a
# `where` selector) held at 1, its face at x = 2 (`cold`) at 0, every other face insulated (`surface: {flux: 0}`).
# There is no series in such a part, so the run's reference is quadratic finite elements on tetrahedra that
# Gmsh makes from the same STL (scikit-fem's P2 element; the `fem` extra), refined until the temperature on the
# evaluation grid settles. Measured with the case as shipped (2026-12-03, 2-core CPU shared with other jobs):
# rel-L2(u) 4.5e-3 against that reference, 211 s the whole run.

# %%
heat_budget = (["model.hidden=[16, 16]", "sampling.interior=500", "sampling.boundary=256",
                "sampling.parts={hot: 64, cold: 64}", "training.adam.steps=300", "training.lbfgs.steps=0",
                "evaluation.grid=[21, 21, 6]", "evaluation.rtol=1e-3"] if SMALL else [])  # small: Adam alone (the
# smoke suite's heat_bracket_short runs both phases)
heat = sciml.run_case(sciml.load_case("heat_bracket", heat_budget), out=os.path.join(OUT, "heat_bracket"),
                      quiet=True)
print("reference:", heat["reference"])
print(f"relative L2 error of u: {heat['metrics']['rel_l2_u']:.2e}")

# %% [markdown]
# **The temperature on the mid-plane of the part's thickness** (the grid's middle z), the network against the
# finite elements; the grid's points outside the part are masked.

# %%
f = sciml.load_run(heat["run_dir"]).fields
k = f["x"].shape[2] // 2
X, Y, inside = f["x"][:, :, k], f["y"][:, :, k], f["inside"][:, :, k].astype(bool)
u = {name: np.where(inside, f["u"][name][:, :, k], np.nan) for name in ("prediction", "reference")}
fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
for ax, (title, data) in zip(axes, [("PINN", u["prediction"]), ("P2 finite elements", u["reference"]),
                                    ("|error|", np.abs(u["prediction"] - u["reference"]))]):
    im = ax.pcolormesh(X, Y, data, shading="auto")
    ax.set_aspect("equal")
    ax.set_title(f"u at z = {f['z'][0, 0, k]:.3g}, {title}")
    fig.colorbar(im, ax=ax, shrink=0.8)
plt.tight_layout()
plt.show()
