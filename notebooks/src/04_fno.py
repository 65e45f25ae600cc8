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

# %% [markdown]
# **Your own data.** An operator trains as well on a file you have: the FNO paper's `.mat` files, a PDEBench
# HDF5 file, your own solver's snapshots on a grid. Here the samples above are written to a MATLAB file as a
# user's code would (`(samples, x, y)`, the training samples then the test ones), `sciml data info` shows it as
# sciml reads it, and the case names the file's arrays in place of the generator. The same samples make the same
# dataset, so the run reaches the same test error to every digit.

# %%
from scipy import io

from sciml.io import datafile

with h5py.File(path) as f:
    coeff = np.concatenate([f["train"]["inputs"][..., 0], f["test"]["21"]["inputs"][..., 0]])
    sol = np.concatenate([f["train"]["outputs"][..., 0], f["test"]["21"]["outputs"][..., 0]])
mine = os.path.join(OUT, "my_darcy.mat")
io.savemat(mine, {"coeff": coeff, "sol": sol})
print(datafile.info(mine))  # what `sciml data info FILE` prints
from_file = sciml.load_case("darcy_fno_quick", [
    f"data.path={OUT}/darcy_from_file.h5", "data.generator=null", "data.params={}", f"data.file={mine}",
    "data.inputs=coeff", "data.outputs=sol", "data.super_resolution=[]", *budget])
sciml.datagen_case(from_file)
again = sciml.run_case(from_file, out=os.path.join(OUT, "fno_from_file"), quiet=True)
print(f"rel_l2 from the generator {summary['metrics']['rel_l2']:.6g}, from the file {again['metrics']['rel_l2']:.6g}")
assert again["metrics"]["rel_l2"] == summary["metrics"]["rel_l2"]  # the same dataset, the same training
