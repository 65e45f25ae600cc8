r"""scikit-fem's Morley and Argyris plate elements, their bases built in each element's own scaled coordinates.

skfem's ``ElementGlobal`` writes each basis function in monomials :math:`x^i y^j` of the physical coordinates,
with coefficients from the inverse of the element's matrix of degrees of freedom of those monomials. For an
element of diameter :math:`s` away from the origin that matrix's condition grows like :math:`s^{-k}` (:math:`k`
the degree, 5 for Argyris): singular in double precision on the small elements of a graded mesh, and an error
floor of :math:`2\times10^{-8}` in :math:`w` on a uniform mesh of :math:`h = 1/16` (here :math:`6\times10^{-10}`).
Here the monomials are taken in :math:`\hat x = (x - c_K)/s_K` (:math:`c_K` the lower left corner of the element's
bounding box, :math:`s_K` its longest edge), so every element's matrix is that of an element of unit size at the
origin. A derivative of order :math:`m` then carries :math:`s_K^{-m}`, in the degrees of freedom (a gradient or
normal derivative, a Hessian entry) and in the basis handed to the assembly (gradient, Hessian, third
derivatives). Normals and their orientation are skfem's own. The monomials are formed by products of powers
(numpy's ``**`` on arrays calls ``pow``, many times slower).
"""
from __future__ import annotations

import numpy as np
import skfem
from skfem.element.discrete_field import DiscreteField
from skfem.element.element_global import ElementGlobal


class _Scaled(ElementGlobal):
    """Over an ``ElementGlobal`` (first in the bases): monomials in scaled element coordinates (module docstring)."""

    centre: np.ndarray  # (2, elements): the origin of each element's coordinates, set with the inverse matrices
    scale: np.ndarray  # (elements,)
    _eval_tind: np.ndarray
    V: np.ndarray | None = None  # skfem's cache of the inverse matrices, one per element of one mesh

    def _eval_dofs(self, mesh, tind=None):
        p = mesh.p[:, mesh.t]  # (2, 3, elements)
        self.centre = p.min(axis=1)  # non-negative coordinates: pow of a negative base is 15 times slower
        self.scale = np.max(np.linalg.norm(p - np.roll(p, 1, axis=1), axis=0), axis=0)
        self._eval_tind = np.arange(mesh.t.shape[1]) if tind is None else tind
        return super()._eval_dofs(mesh, tind)

    def gdof(self, F, w, i):
        c, s = self.centre[:, self._eval_tind], self.scale[self._eval_tind]
        local = dict(w)
        for key in ("v", "e"):
            local[key] = (w[key] - c[None]) / s[None, None]
        Fs = {diff: _divided(f, s ** len(diff)) for diff, f in F.items()}
        return super().gdof(Fs, local, i)

    def _exponents(self) -> list[tuple[int, int]]:
        """The monomials ``x^a y^b`` of skfem's power basis, in its order (``_pbasis_init``)."""
        n = self.maxdeg
        return [(a, b) for a in range(n + 1) for b in range(n + 1) if a + b <= n]

    def gbasis(self, mapping, X, i, tind=None):
        if tind is None:
            tind = np.arange(mapping.mesh.t.shape[1])
        inverse = self.V
        if inverse is None:
            self._pbasis_init(self.maxdeg, self.dim, self.derivatives, self.tensorial_basis)
            inverse = self.V = np.linalg.inv(self._eval_dofs(mapping.mesh))
        V = inverse[tind]
        s = self.scale[tind][:, None]
        x = (mapping.F(X, tind=tind) - self.centre[:, tind][:, :, None]) / s[None]
        px, py = _powers(x[0], self.maxdeg), _powers(x[1], self.maxdeg)
        U = [np.zeros((self.dim,) * k + x[0].shape) for k in range(self.derivatives + 1)]
        for k in range(self.derivatives + 1):
            for diff in np.ndindex(*(self.dim,) * k):
                dx, dy = diff.count(0), diff.count(1)
                for itr, (a, b) in enumerate(self._exponents()):
                    if a >= dx and b >= dy:
                        c = V[:, itr, i][:, None] * (_falling(a, dx) * _falling(b, dy))
                        U[k][diff] += c * px[a - dx] * py[b - dy]
            U[k] /= s ** k
        extra = {f"grad{k + 3}": U[k + 3] for k in range(self.derivatives - 2)}
        return (DiscreteField(value=U[0], grad=U[1], hess=U[2], **extra),)


def _powers(x: np.ndarray, n: int) -> list[np.ndarray]:
    """``[1, x, x^2, ..., x^n]`` by products (numpy's ``**`` calls ``pow``, ten times slower)."""
    out = [np.ones_like(x), x]
    for _ in range(n - 1):
        out.append(out[-1] * x)
    return out[: n + 1]


def _falling(a: int, k: int) -> int:
    """``a (a - 1) ... (a - k + 1)``: the coefficient of the k-th derivative of ``x^a``."""
    return int(np.prod(np.arange(a - k + 1, a + 1))) if k else 1


def _divided(f, by):
    return lambda *x: f(*x) / by


class Morley(_Scaled, skfem.ElementTriMorley):
    """The Morley element in scaled element coordinates."""


class Argyris(_Scaled, skfem.ElementTriArgyris):
    """The Argyris element in scaled element coordinates."""


def element(name: str, third_derivatives: bool = False) -> skfem.Element:
    """A fresh element (skfem keeps the inverse matrices on the element object, one mesh per object)."""
    elem = {"morley": Morley, "argyris": Argyris}[name]()
    if third_derivatives:
        elem.derivatives = 3
    return elem
