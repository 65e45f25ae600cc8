"""Write an HDF5 file of Poisson solutions on an unstructured triangle mesh of an L-shaped plate, as a user's own
finite-element code would: the data of the case lshape_poisson_deeponet (a DeepONet trained from a file of values
at a mesh's nodes).

    python cases/files/make_lshape_poisson.py data/lshape_poisson.h5 [--samples 2200] [--h 0.04] [--seed 0]

The plate is the unit square less its upper right quarter, [0, 1]^2 minus (1/2, 1]^2, meshed by Triangle with
elements of side about ``h`` (:func:`sciml.solvers.classical.fem.mesh`; no angle below 30 degrees). Each sample
is a source ``f`` drawn from a Gaussian random field, N(0, (-Laplacian + tau^2)^(-alpha)) of the unit square's
cosines (:func:`sciml.solvers.classical.grf.neumann_basis`) read at the nodes, and the solution ``u`` of

    -Laplacian u = f in the plate,  u = 0 on its edges,

by linear (P1) finite elements with scikit-fem, the load the mass matrix times ``f`` at the nodes (``f``'s
linear interpolant). The operator is linear in ``f``: the stiffness matrix of the interior nodes is factorised
once and every sample is one pair of triangular solves (2200 samples in about a second). Sample ``i`` depends on
``(seed, i)`` only (:func:`sciml.solvers.classical.grf.sample_rngs`).

The file holds ``nodes`` (n, 2), ``elements`` (m, 3: the triangles' node indices), ``f`` and
``u`` (samples, n), float64, and the settings as attributes; a case reads it with ``data.file``, ``inputs: f``,
``outputs: u``, ``grid: nodes``. Written atomically (:func:`sciml.io.atomic.atomic_h5`).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
import scipy.sparse.linalg
import skfem
from skfem.helpers import dot, grad

from sciml.io.atomic import atomic_h5
from sciml.solvers.classical import fem, grf

L_SHAPE = [(0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (0.5, 0.5), (0.5, 1.0), (0.0, 1.0)]  # counter-clockwise
FIELD = {"alpha": 2.0, "tau": 3.0, "modes": 24}  # the source's random field: smoothness, length scale, cosines


def plate_mesh(h: float) -> skfem.MeshTri:
    """Triangle's mesh of the L-shaped plate, elements of side about ``h``."""
    m, _ = fem.mesh(fem.polygon(L_SHAPE, "edge"), h)
    return m


@skfem.BilinearForm
def _laplace(u, v, _):
    return dot(grad(u), grad(v))


@skfem.BilinearForm
def _mass(u, v, _):
    return u * v


class Poisson:
    """-Laplacian u = f, u = 0 on the boundary, by P1 elements on ``m``: the interior stiffness factorised once."""

    def __init__(self, m: skfem.MeshTri):
        basis = skfem.Basis(m, skfem.ElementTriP1())
        self.interior = basis.complement_dofs(basis.get_dofs())
        stiffness, self.mass = skfem.asm(_laplace, basis).tocsc(), skfem.asm(_mass, basis).tocsr()
        self.lu = scipy.sparse.linalg.splu(stiffness[self.interior][:, self.interior].tocsc())
        self.n = m.p.shape[1]

    def solve(self, f: np.ndarray) -> np.ndarray:
        """The solutions ``(samples, n)`` at the nodes for sources ``f`` ``(samples, n)`` at the nodes."""
        load = (self.mass @ np.atleast_2d(f).T)[self.interior]
        u = np.zeros((self.n, load.shape[1]))
        u[self.interior] = self.lu.solve(load)
        return u.T


def sources(nodes: np.ndarray, samples: int, seed: int, alpha: float = FIELD["alpha"], tau: float = FIELD["tau"],
            modes: int = FIELD["modes"]) -> np.ndarray:
    """``samples`` random sources at ``nodes`` ``(n, 2)`` in the unit square: the Karhunen-Loeve sum of the square's
    ``modes`` x ``modes`` cosines with weights ``(pi^2 |k|^2 + tau^2)^(-alpha / 2)`` (the mean mode kept), sample
    ``i`` from the ``i``-th generator of ``seed``; ``(samples, n)``."""
    k = np.arange(modes)
    weight = (np.pi ** 2 * (k[:, None] ** 2 + k[None, :] ** 2) + tau ** 2) ** (-alpha / 2.0)
    px, py = (grf.neumann_basis(nodes[:, a], modes) for a in (0, 1))
    xi = np.stack([rng.standard_normal((modes, modes)) for rng in grf.sample_rngs(seed, samples)])
    return np.einsum("nk,skl,nl->sn", px, weight * xi, py, optimize=True)


def write(path: str, samples: int = 2200, h: float = 0.04, seed: int = 0) -> dict:
    """Mesh the plate, draw ``samples`` sources, solve, and write the file at ``path``; what it holds, in words."""
    m = plate_mesh(h)
    nodes = m.p.T.copy()
    f = sources(nodes, samples, seed)
    u = Poisson(m).solve(f)
    with atomic_h5(path) as out:
        out["nodes"], out["elements"], out["f"], out["u"] = nodes, m.t.T.astype(np.int64), f, u
        out.attrs.update({"equation": "-laplacian u = f in the L-shaped plate [0, 1]^2 minus (1/2, 1]^2, u = 0 on "
                                      "its edges; P1 finite elements (scikit-fem) on Triangle's mesh",
                          "h": h, "seed": seed, **FIELD})
    return {"nodes": len(nodes), "elements": m.t.shape[1], "samples": samples}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write an HDF5 file of Poisson solutions on an L-shaped plate's "
                                            "unstructured mesh: nodes, elements, sources f and solutions u.")
    p.add_argument("path", help="the HDF5 file to write, e.g. data/lshape_poisson.h5")
    p.add_argument("--samples", type=int, default=2200, help="sources drawn and solved (default 2200)")
    p.add_argument("--h", type=float, default=0.04, help="element side (default 0.04: about 900 nodes)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sources (default 0)")
    a = p.parse_args(argv)
    if a.samples < 1 or not 0.005 <= a.h <= 0.5 or a.seed < 0:
        p.error("need --samples >= 1, 0.005 <= --h <= 0.5 and --seed >= 0")
    held = write(a.path, a.samples, a.h, a.seed)
    print(f"wrote {a.path}: {held['samples']} samples at {held['nodes']} nodes ({held['elements']} triangles)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
