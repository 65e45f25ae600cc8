"""PINN figures: field maps on a plane with masked holes, flow fields with streamlines, 1-D profiles."""
from __future__ import annotations

import numpy as np

from sciml.plots import plt, save


def field_maps(X, Y, pred, ref, name: str, path: str, where: str = "") -> None:
    """Prediction, reference and |error| on a plane (``X``, ``Y`` from meshgrid 'ij'); NaN is blank."""
    m = np.ma.masked_invalid
    panels = [("prediction", pred)]
    if ref is not None:
        panels += [("reference", ref), ("|error|", np.abs(pred - ref))]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4), squeeze=False)
    for ax, (label, data) in zip(axes[0], panels):
        im = ax.pcolormesh(X, Y, m(data), shading="auto", cmap="magma" if label == "|error|" else "viridis")
        ax.set_aspect("equal")
        ax.set_title(f"{name} {label}")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        fig.colorbar(im, ax=ax, shrink=0.8)
    title = name + (f" ({where})" if where else "")
    if ref is not None:
        ok = np.isfinite(pred) & np.isfinite(ref)
        rel = np.linalg.norm(pred[ok] - ref[ok]) / max(np.linalg.norm(ref[ok]), 1e-300)
        title += f": relative L2 error on this plane {rel:.2e}"
    fig.suptitle(title)
    save(fig, path)


def flow(X, Y, u, v, path: str, where: str = "") -> None:
    """Speed with streamlines of the in-plane velocity."""
    speed = np.sqrt(u**2 + v**2)
    fig, ax = plt.subplots(figsize=(7, 7 * np.ptp(Y) / max(np.ptp(X), 1e-12) + 0.8))
    im = ax.pcolormesh(X, Y, np.ma.masked_invalid(speed), shading="auto", cmap="viridis")
    xs, ys = X[:, 0], Y[0, :]
    ax.streamplot(xs, ys, np.ma.masked_invalid(u.T), np.ma.masked_invalid(v.T), color="w", linewidth=0.6,
                  density=1.4, arrowsize=0.7)
    ax.set_aspect("equal")
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_title("speed and streamlines" + (f" ({where})" if where else ""))
    fig.colorbar(im, ax=ax, shrink=0.8)
    save(fig, path)


def profile(p: dict, path: str) -> None:
    """A 1-D profile (``s`` along ``s_axis``) with reference points (``ref`` at ``ref_axis``)."""
    fig, ax = plt.subplots(figsize=(5, 5))
    if p.get("swap"):
        ax.plot(p["s"], p["s_axis"], "-", lw=1.8, label="PINN")
        ax.plot(p["ref"], p["ref_axis"], "o", mfc="none", label=p.get("ref_label", "reference"))
    else:
        ax.plot(p["s_axis"], p["s"], "-", lw=1.8, label="PINN")
        ax.plot(p["ref_axis"], p["ref"], "o", mfc="none", label=p.get("ref_label", "reference"))
    ax.set_xlabel(p["xlabel"])
    ax.set_ylabel(p["ylabel"])
    ax.set_title(p["title"], fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    save(fig, path)
