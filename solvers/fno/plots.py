"""Figures of an FNO run: training history, and input / truth / prediction / error of test samples."""
from __future__ import annotations

import numpy as np

from sciml.plots import plt, save


def history(rows: list[dict], path: str, title: str) -> None:
    """Training loss and test relative L2 against the epoch, log scale."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.12, top=0.92)
    epochs = np.array([r["epoch"] for r in rows])
    for key, label in (("loss", "train loss"), ("test_rel_l2", "test rel. L2")):
        vals = np.array([r.get(key, np.nan) for r in rows], dtype=float)
        ok = np.isfinite(vals)
        if ok.any():
            ax.semilogy(epochs[ok], vals[ok], marker="." if ok.sum() < 30 else None, label=label)
    ax.set_xlabel("epoch")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, path, dpi=90, tight=False)


def sample(grid: np.ndarray, x: np.ndarray, y: np.ndarray, pred: np.ndarray, path: str, title: str) -> None:
    """One test sample: input, truth, prediction and error (last channel: the last time step).

    ``grid``: coordinates ``(s..., d)``; ``x``, ``y``, ``pred``: ``(s..., channels)``.
    """
    a, u, p = x[..., -1], y[..., -1], pred[..., -1]
    rel = np.linalg.norm(pred - y) / max(np.linalg.norm(y), 1e-30)
    if grid.shape[-1] == 1:
        t = grid[..., 0]
        fig, axes = plt.subplots(1, 3, figsize=(14, 3.6))
        fig.subplots_adjust(left=0.05, right=0.98, bottom=0.15, top=0.83, wspace=0.25)
        axes[0].plot(t, a)
        axes[0].set_title("input")
        axes[1].plot(t, u, label="truth", lw=2.2)
        axes[1].plot(t, p, "--", label="prediction")
        axes[1].legend()
        axes[1].set_title("output")
        axes[2].plot(t, p - u, color="C3")
        axes[2].set_title("prediction - truth")
        for ax in axes:
            ax.set_xlabel("x")
            ax.grid(True, alpha=0.3)
    else:
        x0, x1, y0, y1 = grid[0, 0, 0], grid[-1, -1, 0], grid[0, 0, 1], grid[-1, -1, 1]
        lim = (min(u.min(), p.min()), max(u.max(), p.max()))
        panels = [("input", a, None, "viridis"), ("truth", u, lim, "viridis"), ("prediction", p, lim, "viridis"),
                  ("|error|", np.abs(p - u), None, "magma")]
        fig, axes = plt.subplots(1, 4, figsize=(18, 4))
        fig.subplots_adjust(left=0.03, right=0.97, bottom=0.08, top=0.85, wspace=0.3)
        for ax, (label, data, vlim, cmap) in zip(axes, panels):
            im = ax.imshow(data.T, origin="lower", extent=(x0, x1, y0, y1), cmap=cmap, interpolation="nearest",
                           **({"vmin": vlim[0], "vmax": vlim[1]} if vlim else {}))
            ax.set_title(label)
            ax.set_xlabel("x")
            ax.set_ylabel("y")
            fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle(f"{title}: relative L2 error {rel:.2e}")
    save(fig, path, dpi=90, tight=False)
