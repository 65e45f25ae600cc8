r"""A reference's refinement: solve on meshes of :math:`h_0, h_0/2, \dots` until a field at given points settles,
and what it reports.

With changes :math:`c_k = \|u_k - u_{k-1}\| / \|u_k\|` between successive meshes, the loop stops at the first
below ``rtol``; the observed orders are :math:`\log_2(c_{k-1}/c_k)` and, the changes falling geometrically by
:math:`\rho = c_k / c_{k-1} < 1`, the finest mesh's error is about the tail :math:`c_k\,\rho/(1 - \rho)` (NaN
where :math:`\rho` is not in (0, 1)). The plate's and the heat reference's loop (:mod:`.plate`, :mod:`.heat`).
"""
from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


def change(new: np.ndarray, old: np.ndarray) -> float:
    """``|new - old| / |new|`` (the absolute change where ``new`` is zero)."""
    norm = np.linalg.norm(new)
    return float(np.linalg.norm(new - old) / (norm if norm > 0 else 1.0))


def summary(changes: list[float]) -> dict:
    """``{"orders": [...], "error_estimate": ...}`` of the module notes."""
    c = np.array(changes)
    rho = c[-1] / c[-2] if len(c) > 1 else np.nan
    return {"orders": np.log2(c[:-1] / c[1:]).tolist() if len(c) > 1 else [],
            "error_estimate": float(c[-1] * rho / (1.0 - rho)) if 0 < rho < 1 else float("nan")}


def halving(solve: Callable[[float], tuple[dict, dict]], h: float, field: str, rtol: float, cap: int, growth: int,
            info: dict, what: str) -> tuple[dict, dict]:
    """Halve ``h`` until ``field`` settles (module notes). ``solve(h) -> (fields at the points, its info with
    "elements", "dofs", "seconds")``; ``info`` is filled with the lists ``h``, ``elements``, ``dofs``, ``seconds``,
    ``changes`` and the :func:`summary`, ``rtol`` and ``wall_seconds``. Raises ``ValueError`` (``what`` names the
    reference and its elements) when the next mesh, ``growth`` times the last, would exceed ``cap`` elements
    before the change falls below ``rtol``."""
    start = time.perf_counter()
    info |= {"rtol": rtol, "h": [], "elements": [], "dofs": [], "seconds": [], "changes": []}
    previous = None
    while True:
        out, made = solve(h)
        for key in ("elements", "dofs", "seconds"):
            info[key].append(made[key])
        info["h"].append(float(h))
        if previous is not None:
            info["changes"].append(change(out[field], previous))
            if info["changes"][-1] < rtol:
                break
        if growth * made["elements"] > cap:
            raise ValueError(f"{what} did not converge to rtol={rtol} within {cap} elements: h {info['h']}, "
                             f"elements {info['elements']}, changes of {field} {info['changes']}")
        previous, h = out[field], h / 2.0
    info |= summary(info["changes"])
    info["wall_seconds"] = time.perf_counter() - start
    return out, info
