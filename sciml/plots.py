"""Figures for run folders: the loss history, colour scales and labels the solvers' figures share, and
:func:`save` (PNG, written atomically), which every figure goes through.

Figure functions here and in the solvers build and return a :class:`~matplotlib.figure.Figure` (tests read its
axes, norms and labels); the caller saves it. Figures use constrained layout (no overlapping labels). A
field whose values change sign (``min < 0 < max``: moments, shear, vorticity, a velocity component) is drawn
with a diverging map centred at zero; one of a single sign with a sequential map (:func:`colour_scale`).
Labels carry units where the case gives them (:func:`label`). Within :func:`disabled` (``sciml run
--no-plots``, ``sciml.run_case(..., plots=False)``), or where the environment sets ``SCIML_PLOTS=off`` and no
:func:`writing` block says otherwise, :func:`save` writes nothing: the figures cost about 0.3-1 s of CPU each, a
good part of a small run, so the runs hand :func:`save` the function that builds each figure and it is not even
built. ``SCIML_PLOTS=only:loss,w`` (or a :func:`writing` block given those names) writes those figures alone (the
file names without ``.png``), the others not built.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from .io.atomic import atomic_path

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The backend is the front door's choice (the CLI draws off-screen; a notebook keeps its own): nothing here sets it.
# matplotlib is loaded when a figure is first built (about 0.3 s of every process's start otherwise: a run whose
# figures are off, a datagen, a worker, loads none of it).

DIVERGING, SEQUENTIAL = "RdBu_r", "viridis"
_WRITING: contextvars.ContextVar[bool | frozenset[str] | None] = contextvars.ContextVar("plots_writing", default=None)
ENV = "SCIML_PLOTS"  # "off" (or 0, false, no): runs write no figures unless a writing(True) block asks; "only:a,b"


@contextlib.contextmanager
def writing(on: bool | frozenset[str] | None) -> Iterator[None]:
    """Within it :func:`save` writes its figure (``on``), only the figures of these names (a set of file names
    without ``.png``) or only closes it (``False``); None: as the environment's ``SCIML_PLOTS`` says."""
    token = _WRITING.set(on)
    try:
        yield
    finally:
        _WRITING.reset(token)


def disabled() -> contextlib.AbstractContextManager[None]:
    """Within it :func:`save` only closes its figure: runs whose numbers, fields and checkpoints are all that is
    wanted (a sweep; ``sciml run --no-plots``)."""
    return writing(False)


def writes(path: str | None = None) -> bool:
    """Whether :func:`save` writes (the figure at ``path``): the innermost :func:`writing` block's say, else the
    environment's ``SCIML_PLOTS`` (on unless ``off``, ``0``, ``false`` or ``no``; ``only:a,b``: the figures
    named)."""
    on = _WRITING.get()
    if on is None:
        env = os.environ.get(ENV, "on").strip()
        on = frozenset(n.strip() for n in env[5:].split(",")) if env.lower().startswith("only:") else \
            env.lower() not in ("off", "0", "false", "no")
    if isinstance(on, frozenset):
        return path is not None and os.path.splitext(os.path.basename(path))[0] in on
    return on


def save(fig: Figure | Callable[[], Figure], path: str, dpi: int = 110, tight: bool = True) -> None:
    """Write ``fig`` as a PNG at ``path`` atomically (when :func:`writes` it) and close it. ``fig`` may be the
    function that builds the figure: it is called only when the figure is written (a run's figures cost nothing
    when off)."""
    if not writes(path):
        if not callable(fig):  # a figure built already
            _pyplot().close(fig)
        return
    fig = fig() if callable(fig) else fig
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi, bbox_inches="tight" if tight else None)
    _pyplot().close(fig)


def _pyplot():
    import matplotlib.pyplot as plt

    return plt


def figure(rows: int = 1, cols: int = 1, size: tuple[float, float] = (7, 4.2), grid: bool = False):
    """``(fig, axes)`` with constrained layout: one axes, or (``grid``, or several) a 2-D array of them."""
    return _pyplot().subplots(rows, cols, figsize=size, layout="constrained", squeeze=not grid and rows * cols == 1)


def label(name: str, units: str | None = None) -> str:
    """``"name [units]"``, or ``name`` when the units are unknown."""
    return f"{name} [{units}]" if units else name


def colour_scale(*arrays) -> dict:
    """``cmap`` and ``norm`` for values ``arrays`` share: diverging and centred at zero if they change sign,
    sequential over their range otherwise (NaN ignored)."""
    finite = np.concatenate([np.asarray(a, float)[np.isfinite(a)].ravel() for a in arrays] or [np.zeros(0)])
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    from matplotlib.colors import CenteredNorm, Normalize

    if lo < 0 < hi:
        return {"cmap": DIVERGING, "norm": CenteredNorm(0.0, max(-lo, hi))}
    return {"cmap": SEQUENTIAL, "norm": Normalize(lo, hi)}


def loss_history(rows: list[dict], title: str = "training loss", phases: tuple[str, ...] = (),
                 errors: dict | None = None):
    """Each loss term (columns ``loss`` and ``loss.*``) against the step, log scale (symmetric log where a term
    is negative: an energy).

    ``phases``: the names of the rows' ``phase`` indices; a dashed line marks each change of phase (Adam ->
    L-BFGS). Evaluation errors, on a second axis: the rows' ``rel_l2_*`` columns (evaluations during
    training) and ``errors`` (``rel_l2_*`` of the final evaluation, at the last step).
    """
    fig, ax = figure(size=(9, 4.6))
    steps = np.array([r["step"] for r in rows])
    columns = {key: np.array([r.get(key, np.nan) for r in rows], dtype=float)
               for key in rows[0] if key == "loss" or key.startswith("loss.")}
    for key, vals in columns.items():
        ax.plot(steps, vals, lw=2.2 if key == "loss" else 1.0, label=key)
    seen = np.concatenate([v[np.isfinite(v)] for v in columns.values()] or [np.ones(1)])
    positive = bool(np.all(seen > 0))
    if positive:
        ax.set_yscale("log")
    else:  # an energy (a Ritz form's term) may be negative: linear within the smallest magnitude seen
        ax.set_yscale("symlog", linthresh=float(np.min(np.abs(seen[seen != 0]), initial=1.0)))
    phase = [int(r["phase"]) for r in rows if "phase" in r]
    for i in (i for i in range(1, len(phase)) if phase[i] != phase[i - 1]):
        names = [phases[p] if p < len(phases) else f"phase {p}" for p in (phase[i - 1], phase[i])]
        ax.axvline(rows[i - 1]["step"], color="k", ls="--", lw=1, label=" → ".join(names))
    handles, labels = ax.get_legend_handles_labels()
    keys = [k for k in dict.fromkeys(k for r in rows for k in r) if k.startswith("rel_l2_")]
    final = {k: v for k, v in (errors or {}).items() if k.startswith("rel_l2_")}
    if keys or final:
        err = ax.twinx()
        for i, key in enumerate(dict.fromkeys([*keys, *final])):
            colour = f"C{(i + 5) % 10}"
            vals = np.array([r.get(key, np.nan) for r in rows], dtype=float)
            if np.isfinite(vals).any():
                ok = np.isfinite(vals)
                err.semilogy(steps[ok], vals[ok], ":", marker=".", color=colour, label=key)
            if key in final:
                err.semilogy([steps[-1]], [final[key]], "D", color=colour, ms=5,
                             label=f"{key} (final) {final[key]:.2e}")
        err.set_ylabel("relative L2 error (evaluation)")
        h, l = err.get_legend_handles_labels()
        handles, labels = handles + h, labels + l
    ax.set_xlabel("step")
    ax.set_ylabel("mean squared residual" if positive else "loss (an energy's term: its mean)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    fig.legend(handles, labels, fontsize=7, loc="outside right upper")  # beside the axes: nothing hidden
    return fig
