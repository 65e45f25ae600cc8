"""Figures of an FNO run: training history, and input / truth / prediction / error of test samples.

Each function returns the figure (:mod:`sciml.plots`: constrained layout, a centred diverging map for signed
fields); the driver saves it. Coordinates and values are the dataset's (nondimensional).
"""
from __future__ import annotations

import numpy as np

from sciml.plots import colour_scale, figure


def history(rows: list[dict], title: str):
    """Training loss and test relative L2 against the epoch, log scale."""
    fig, ax = figure()
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
    return fig


def sample(grid: np.ndarray, x: np.ndarray, y: np.ndarray, pred: np.ndarray, title: str):
    """One test sample: input, truth, prediction and error (last channel: the last time step).

    ``grid``: coordinates ``(s..., d)`` or a point set's ``(n_points, d)``; ``x``, ``y``, ``pred``: ``(s...,
    channels)``. Truth and prediction
    share one colour scale.
    """
    a, u, p = x[..., -1], y[..., -1], pred[..., -1]
    rel = np.linalg.norm(pred - y) / max(np.linalg.norm(y), 1e-30)
    if grid.shape[-1] == 1:
        t = grid[..., 0]
        fig, axes = figure(1, 3, size=(14, 3.8))
        axes = axes[0]
        axes[0].plot(t, a)
        axes[0].set_title("input")
        axes[1].plot(t, u, label="truth", lw=2.2)
        axes[1].plot(t, p, "--", label="prediction")
        axes[1].legend()
        axes[1].set_title("output")
        axes[2].plot(t, p - u, color="C3")
        axes[2].axhline(0.0, color="k", lw=0.6)
        axes[2].set_title("prediction - truth")
        for ax in axes:
            ax.set_xlabel("x")
            ax.grid(True, alpha=0.3)
    else:
        draw = _scattered if grid.ndim == 2 else _image  # a point set's (n_points, d), or a grid's (s, s, 2)
        shared = colour_scale(u, p)
        panels = [("input", a, colour_scale(a)), ("truth", u, shared), ("prediction", p, shared),
                  ("|error|", np.abs(p - u), {"cmap": "magma", "norm": colour_scale(np.abs(p - u))["norm"]})]
        fig, axes = figure(1, 4, size=(18, 4.4))
        for ax, (label, data, scale) in zip(axes[0], panels):
            im = draw(ax, grid, data, scale)
            ax.set_title(label)
            ax.set_xlabel("x")
            ax.set_ylabel("y")
            fig.colorbar(im, ax=ax, shrink=0.8, label=label)
    fig.suptitle(f"{title}: relative L2 error {rel:.2e}")
    return fig


def _image(ax, grid: np.ndarray, data: np.ndarray, scale: dict):
    """``data (s, s)`` on the tensor grid ``grid (s, s, 2)``, as an image."""
    x0, x1, y0, y1 = grid[0, 0, 0], grid[-1, -1, 0], grid[0, 0, 1], grid[-1, -1, 1]
    return ax.imshow(data.T, origin="lower", extent=(x0, x1, y0, y1), interpolation="nearest", **scale)


def _scattered(ax, grid: np.ndarray, data: np.ndarray, scale: dict):
    """``data (n,)`` at the points ``grid (n, d)`` (their first two coordinates), interpolated on their Delaunay
    triangles."""
    ax.set_aspect("equal")
    return ax.tripcolor(grid[:, 0], grid[:, 1], data, shading="gouraud", **scale)
