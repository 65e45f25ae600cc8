"""Figures for run folders: loss history and field maps (prediction, reference, error). PNG, written atomically."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .io.atomic import atomic_path

# The backend is the front door's choice (the CLI draws off-screen; a notebook keeps its own): nothing here sets it.


def save(fig, path: str, dpi: int = 110, tight: bool = True) -> None:
    """Write ``fig`` as a PNG at ``path`` atomically and close it."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, **({"bbox_inches": "tight"} if tight else {}))
    plt.close(fig)


def loss_history(rows: list[dict], path: str, title: str = "training loss") -> None:
    """Each loss term (columns ``loss`` and ``loss.*``) against the step, log scale."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    steps = np.array([r["step"] for r in rows])
    for key in [k for k in rows[0] if k == "loss" or k.startswith("loss.")]:
        vals = np.array([r.get(key, np.nan) for r in rows], dtype=float)
        ax.semilogy(steps, vals, lw=2.2 if key == "loss" else 1.0, label=key)
    ax.set_xlabel("step")
    ax.set_ylabel("mean squared residual")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    save(fig, path)


def field_maps(X, Y, pred, ref, name: str, path: str, unit: str = "") -> None:
    """Three panels: prediction, reference and absolute error on a grid (``X``, ``Y`` from meshgrid 'ij')."""
    panels = [("prediction", pred)] + ([("reference", ref), ("|error|", np.abs(pred - ref))] if ref is not None else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4), squeeze=False)
    for ax, (label, data) in zip(axes[0], panels):
        im = ax.pcolormesh(X, Y, data, shading="auto", cmap="magma" if label == "|error|" else "viridis")
        ax.set_aspect("equal")
        ax.set_title(f"{name} {label}" + (f" [{unit}]" if unit else ""))
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        fig.colorbar(im, ax=ax, shrink=0.8)
    if ref is not None:
        rel = np.linalg.norm(pred - ref) / max(np.linalg.norm(ref), 1e-300)
        fig.suptitle(f"{name}: relative L2 error {rel:.2e}")
    save(fig, path)
