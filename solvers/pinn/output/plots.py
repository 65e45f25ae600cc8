"""PINN figures: field maps on planes with masked holes, flow fields with streamlines, 1-D profiles, time series.

Each function returns the figure (:mod:`sciml.plots`: constrained layout, a centred diverging map for signed
fields, units in the labels where the equation gives them); the driver saves it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sciml.plots import colour_scale, figure, label


@dataclass(frozen=True)
class Level:
    """One plane of a field map: the grid ``X``, ``Y`` (meshgrid 'ij'), the prediction and reference there
    (NaN outside the domain; reference None if there is none) and where the plane lies (e.g. "t = 0.5")."""

    X: np.ndarray
    Y: np.ndarray
    pred: np.ndarray
    ref: np.ndarray | None
    where: str = ""


def _axes_labels(ax, units) -> None:
    ax.set_xlabel(label("x", units.get("x")))
    ax.set_ylabel(label("y", units.get("y")))
    ax.set_aspect("equal")


def field_maps(levels: list[Level], name: str, units: dict | None = None):
    """Prediction, reference and |error| of field ``name`` (columns) on each plane of ``levels`` (rows).

    Prediction and reference share one colour scale over every plane (:func:`sciml.plots.colour_scale`); the
    |error| has its own. Each error panel's title gives the relative L2 error on its plane.
    """
    units = units or {}
    has_ref = levels[0].ref is not None
    cols = 3 if has_ref else 1
    fig, axes = figure(len(levels), cols, size=(4.4 * cols + 0.6, 3.6 * len(levels) + 0.4),
                       grid=True)
    m = np.ma.masked_invalid
    shared = colour_scale(*[lv.pred for lv in levels], *[lv.ref for lv in levels if lv.ref is not None])
    errors = [np.abs(lv.pred - lv.ref) for lv in levels] if has_ref else []
    error_scale = {"cmap": "magma", "norm": colour_scale(*errors)["norm"]} if has_ref else {}
    for row, lv in zip(axes, levels):
        panels = [("prediction", lv.pred, shared)]
        if lv.ref is not None:
            ref = lv.ref
            ok = np.isfinite(lv.pred) & np.isfinite(ref)
            rel = np.linalg.norm(lv.pred[ok] - ref[ok]) / max(np.linalg.norm(ref[ok]), 1e-300)
            panels += [("reference", ref, shared), (f"|error|, rel. L2 {rel:.2e}", np.abs(lv.pred - ref),
                                                    error_scale)]
        for ax, (what, data, scale) in zip(row, panels):
            ax.pcolormesh(lv.X, lv.Y, m(data), shading="auto", **scale)
            ax.set_title(f"{name} {what}" + (f"\n{lv.where}" if lv.where else ""), fontsize=9)
            _axes_labels(ax, units)
    for j in range(cols):
        fig.colorbar(axes[0, j].collections[0], ax=axes[:, j], shrink=0.9,
                     label=label(name if j < 2 else f"|{name} error|", units.get(name)))
    fig.suptitle(label(name, units.get(name)))
    return fig


def flow(X, Y, u, v, where: str = "", units: dict | None = None):
    """Speed with streamlines of the in-plane velocity ``(u, v)``."""
    units = units or {}
    speed = np.sqrt(u**2 + v**2)
    fig, ax = figure(size=(7, 7 * np.ptp(Y) / max(np.ptp(X), 1e-12) + 1.2))
    im = ax.pcolormesh(X, Y, np.ma.masked_invalid(speed), shading="auto", **colour_scale(speed))
    xs, ys = X[:, 0], Y[0, :]
    ax.streamplot(xs, ys, np.ma.masked_invalid(u.T), np.ma.masked_invalid(v.T), color="w", linewidth=0.6,
                  density=1.4, arrowsize=0.7)
    _axes_labels(ax, units)
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_title("speed and streamlines" + (f" ({where})" if where else ""))
    fig.colorbar(im, ax=ax, shrink=0.8, label=label("speed", units.get("speed", units.get("u"))))
    return fig


def profile(p: dict):
    """A 1-D profile (``s`` along ``s_axis``) with reference points (``ref`` at ``ref_axis``)."""
    fig, ax = figure(size=(5, 5))
    if p.get("swap"):
        ax.plot(p["s"], p["s_axis"], "-", lw=1.8, label="PINN")
        ax.plot(p["ref"], p["ref_axis"], "o", mfc="none", label=p.get("ref_label", "reference"))
    else:
        ax.plot(p["s_axis"], p["s"], "-", lw=1.8, label="PINN")
        ax.plot(p["ref_axis"], p["ref"], "o", mfc="none", label=p.get("ref_label", "reference"))
    return _labelled(fig, ax, p)


def band(p: dict):
    """An ensemble's profile: the mean ``mean`` along ``s_axis`` in a band of ``band`` standard deviations
    ``std``, with the reference ``ref`` (None: none); below, with a reference, the error of the mean in the
    same band around zero (where the band is too thin to see above, whether it covers the error)."""
    has_ref = p.get("ref") is not None
    fig, axes = figure(2 if has_ref else 1, 1, size=(6, 6.5 if has_ref else 4), grid=True)
    half = p["band"] * p["std"]
    top = axes[0, 0]
    top.fill_between(p["s_axis"], p["mean"] - half, p["mean"] + half, alpha=0.3, label=f"mean ± {p['band']:g} std")
    top.plot(p["s_axis"], p["mean"], "-", lw=1.8, label="ensemble mean")
    if has_ref:
        top.plot(p["s_axis"], p["ref"], "k--", lw=1.2, label="reference")
        low = axes[1, 0]
        low.fill_between(p["s_axis"], -half, half, alpha=0.3, label=f"± {p['band']:g} std")
        low.plot(p["s_axis"], p["mean"] - p["ref"], "-", lw=1.5, label="mean − reference")
        _labelled(fig, low, {**p, "ylabel": f"error of {p['ylabel']}", "title": "the error and the band"})
    return _labelled(fig, top, p)


def series(p: dict):
    """Curves ``p["curves"]`` (label -> values) against ``p["t"]``."""
    fig, ax = figure(size=(7, 4))
    for name, values in p["curves"].items():
        ax.plot(p["t"], values, lw=1.6, label=name)
    return _labelled(fig, ax, p)


def _labelled(fig, ax, p: dict):
    """``fig`` with the axes' labels and title from ``p`` (``xlabel``, ``ylabel``, ``title``), a grid, a legend."""
    ax.set_xlabel(p["xlabel"])
    ax.set_ylabel(p["ylabel"])
    ax.set_title(p["title"], fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig
