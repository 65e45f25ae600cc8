# %% [markdown]
# # 04 · Fourier neural operators: Darcy flow, from a classical solver to zero-shot super-resolution
#
# An FNO learns the map from a permeability field a(x, y) to the pressure u solving −∇·(a∇u) = 1 (Li et al.,
# ICLR 2021). There is no internet here: the data come from sciml's own finite-difference solver, driven by the
# case file. We generate a small dataset, train, and evaluate the trained operator on a finer grid than it was
# trained on.

# %%
import os

import h5py
import matplotlib.pyplot as plt
import numpy as np

import sciml

SMALL = os.environ.get("SCIML_NOTEBOOK_SMALL") == "1"  # CI sets this: a tiny budget
OUT = os.environ.get("SCIML_NOTEBOOK_OUT", "runs/notebooks")

# %% [markdown]
# **Generate the dataset.** Coefficients are Gaussian random fields thresholded to 12 and 3; each sample is
# solved once on the finest grid and subsampled to the training (21) and test (21 and 41) resolutions.

# %%
budget = ["data.n_train=60", "data.n_test=10", "training.epochs=8"] if SMALL else []
case = sciml.load_case("darcy_fno_quick", [f"data.path={OUT}/darcy_nb.h5", *budget])
path = sciml.datagen_case(case)
with h5py.File(path) as f:
    print({res: f["test"][res]["inputs"].shape for res in f["test"]})

# %% [markdown]
# **Train** (Adam with a step schedule; relative L2 loss). The summary holds the test error at the training
# resolution (`rel_l2`) and at the finer grid (`rel_l2_41`), without retraining.

# %%
summary = sciml.run_case(case, out=os.path.join(OUT, "fno"), quiet=True)
print(summary["metrics"], f"{summary['s_per_epoch']:.2f} s/epoch")

# %% [markdown]
# **Zero-shot super-resolution.** The same parameters applied to a 41 × 41 input: the spectral layers act on
# Fourier modes, not grid points. `sciml.load_run(...).predict` is the trained operator, read from the run's
# checkpoint (inputs in the dataset's layout, its normalisation inside).

# %%
predict = sciml.load_run(summary["run_dir"]).predict
with h5py.File(path) as f:
    a, u = f["test"]["41"]["inputs"][:1], f["test"]["41"]["outputs"][:1]
pred = predict(a)["prediction"]
fig, axes = plt.subplots(1, 4, figsize=(15, 3.4))
for ax, (title, img) in zip(axes, [("input a", a[0, ..., 0]), ("truth u", u[0, ..., 0]),
                                   ("FNO at 41 × 41", pred[0, ..., 0]), ("|error|", np.abs(pred - u)[0, ..., 0])]):
    im = ax.imshow(img.T, origin="lower")
    ax.set_title(title)
    fig.colorbar(im, ax=ax, shrink=0.8)
plt.show()
print(f"relative L2 error of this sample at 41 x 41: {np.linalg.norm(pred - u) / np.linalg.norm(u):.3f}")
