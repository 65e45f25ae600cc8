"""Why the plate operator's refined moments missed 3e-2 at 33² (issue 72, docs/notes/operator_estimate.md, "The
moments' floor"): for each load of the out-of-distribution study (``ood_loads.loads``, by their work values), the
rel-L2 of ``w, M_x, M_y, M_xy`` at the grid points against Navier's series of 1024 × 1024 terms of

- ``ref128``: the study's reference (128 × 128 terms): is the reference the cause?
- ``series<K``: the exact series cut to the modes below ``K``: can a field resolved on the grid carry the moments?
- ``grid``: the exact minimiser of the refinement's discrete energy with the load's work by the grid's quadrature
  (Simpson's weights, ``Plate.weights``), among the sine modes below the 2× grid's Nyquist (where its bending
  quadrature is exact), as ``operator_refine_floor.py`` solves it: what the refinement converges to;
- ``band``: the same with the work of the band-limited load whose work values the inputs are
  (``physics.band_limited``, ``Plate.work="band"``): the Navier series of that load;
- ``sampled``: the exact deflection's values at the grid points (1024 × 1024 terms), their sine interpolant (the
  modes below ``S - 1``, what the grid's values of ``w`` say of it, aliasing included) differentiated exactly, as the
  Taylor engine differentiates the operator's decoded field: the moments' floor of a field known by its values on the
  grid (session 51);
- ``fd``: the same values' second central differences at the interior points (the edges' moments by the series'
  exact zero ``w_xx = w_yy = 0`` there; ``M_xy`` by the four-point cross difference, its edges by one-sided ones):
  a finite-difference reading of the grid's ``w``, for comparison.

No network: linear algebra, about 30 s. ``python operator_refine_moments_floor.py [S]`` (default 33)."""
import sys

import numpy as np

from sciml.equations.plate_reference import ood_loads, random_loads
from sciml.solvers.fno.physics import Plate, band_limited

NAMES = ("w", "mx", "my", "mxy")


def grid_minimiser(q: np.ndarray) -> np.ndarray:
    """The sine coefficients (scaled as Navier's loads, ``random_loads.solution``'s ``q_mn``) of the discrete
    energy's minimiser for the load ``q (s, s)`` given on the closed grid, its work by the grid's quadrature."""
    s = q.shape[0]
    sine = np.sin(np.pi * np.outer(np.linspace(0.0, 1.0, s), np.arange(1, 2 * (s - 1))))
    return 4.0 * sine.T @ (Plate(1.0, 0.3, s).weights().reshape(s, s) * q) @ sine  # 4 ∫ q φ_mn (∫ φ_mn² = 1/4)


def band_load(q: np.ndarray) -> np.ndarray:
    """The sine coefficients of the band-limited load whose work values ``q`` are (modes ``1 .. s - 2``)."""
    s = q.shape[0]
    n = 4 * (s - 1) + 1
    L, fine = band_limited(s, n - 1), np.linspace(0.0, 1.0, n)
    values = L @ q @ L.T
    sine = np.sin(np.pi * np.outer(fine, np.arange(1, s - 1)))
    return np.linalg.lstsq(sine, np.linalg.lstsq(sine, values, rcond=None)[0].T, rcond=None)[0].T


def sampled(w: np.ndarray) -> np.ndarray:
    """The load coefficients (as ``band_load``'s) of the sine interpolant of ``w (s, s)`` given on the closed grid
    (zero on the edges): modes ``1 .. s - 2`` matched at the interior points."""
    s = w.shape[0]
    m = np.arange(1, s - 1)
    sine = np.sin(np.pi * np.outer(np.linspace(0.0, 1.0, s)[1:-1], m))
    W = np.linalg.solve(sine, np.linalg.solve(sine, w[1:-1, 1:-1]).T).T
    return W * (np.pi ** 2 * (m[:, None] ** 2 + m[None, :] ** 2)) ** 2  # D = 1: q_mn = W_mn D π⁴ (m² + n²)²


def differenced(w: np.ndarray, nu: float = 0.3) -> dict:
    """``w, mx, my, mxy`` (D = 1) of ``w (s, s)`` on the closed grid by second central differences."""
    h = 1.0 / (w.shape[0] - 1)
    wxx, wyy = np.zeros_like(w), np.zeros_like(w)
    wxx[1:-1, :] = (w[2:, :] - 2 * w[1:-1, :] + w[:-2, :]) / h ** 2
    wyy[:, 1:-1] = (w[:, 2:] - 2 * w[:, 1:-1] + w[:, :-2]) / h ** 2
    wxy = np.gradient(np.gradient(w, h, axis=0, edge_order=2), h, axis=1, edge_order=2)
    return {"w": w, "mx": -(wxx + nu * wyy), "my": -(wyy + nu * wxx), "mxy": -(1 - nu) * wxy}


def errors(got: dict, truth: dict) -> list[float]:
    return [float(np.linalg.norm(got[k] - truth[k]) / np.linalg.norm(truth[k])) for k in NAMES]


def main(s: int) -> None:
    x = np.linspace(0.0, 1.0, s)
    exact = [c for _, c, _ in ood_loads.drawn(terms=1024)]
    rows: dict = {}
    for (kind, c, q), c1024 in zip(ood_loads.loads(s, sampling="work"), exact):
        truth = random_loads.solution(c if kind == "grf" else c1024, x)  # a grf draw's coefficients depend on terms
        top = c if kind == "grf" else c1024
        got = {"ref128": random_loads.solution(c, x), "grid": random_loads.solution(grid_minimiser(q), x),
               "band": random_loads.solution(band_load(q), x),
               "sampled": random_loads.solution(sampled(truth["w"]), x), "fd": differenced(truth["w"])}
        got |= {f"series<{k}": random_loads.solution(top[:k - 1, :k - 1], x) for k in (16, 20, 24, s - 1)}
        for name, fields in got.items():
            rows.setdefault(kind, {}).setdefault(name, []).append(errors(fields, truth))
    print(f"{s}^2, the study's loads by their work values: rel-L2 of w / M_x / M_y / M_xy, mean (max of M_x, M_y)")
    for kind, by in rows.items():
        cells = [f"{name} " + "/".join(f"{v:.4f}" for v in np.mean(e, 0)) + f" ({np.max(np.array(e)[:, 1:3]):.4f})"
                 for name, e in by.items()]
        print(f"  {kind:12s} " + "  ".join(cells))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 33)
