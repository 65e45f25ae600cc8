"""Figures for run folders: the loss history of every term, as PNG written atomically (:func:`save`)."""
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
