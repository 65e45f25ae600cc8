"""Planning: which directions to propagate, how deep, what to collapse, and how to reassemble the requests.

Along a direction ``v`` the order-``k`` Taylor coefficient of ``f(x0 + v t)`` is

    y_k[v] = D^k f[v, …, v] / k! = Σ_{|α| = k} (v^α / α!) ∂^α f,                        (1)

a linear functional of the partials of order ``k``. A request (a multi-index, or the order-``k`` part of a
:class:`~sciml.autodiff.operators.LinearOperator`) is a functional ``Σ_α c_α ∂^α f``; the plan writes each as
``Σ_v w_v y_k[v]`` over a small set of directions, so one propagation serves the whole request set (all
orders, all partials):

- **pure partials** ``∂_i^k`` need the unit direction ``e_i`` only: ``∂_i^k f = k! y_k[e_i]``;
- **mixed partials** by interpolation (Griewank, Utke & Walther, *Math. Comp.* 69, 2000: every ``∂^α`` with
  ``|α| = k`` is an exact combination of ``k``-th directional derivatives). For one ``α`` the tensor divided
  difference of the form ``s ↦ D^k f[s]`` over ``α_m + 1`` symmetric integer nodes per coordinate isolates the
  monomial ``s^α`` (:func:`divided_difference`: ``∂_x∂_y`` from the 2 directions ``(1, ±1)``, ``∂_x²∂_y²`` from 4);
  for many partials of one order a unisolvent set of ``binom(|S|+k-1, k)`` directions on their support ``S``
  chosen as approximate Fekete points (column-pivoted QR of the evaluation matrix of small integer
  directions, :func:`fekete_directions`) keeps the solve well conditioned; the cheaper option is taken. The
  weights are exact rationals for divided differences and a (checked) least-squares solve otherwise;
- **isotropic operators**: a spherical 4-design ``{v_m}_{m=1}^M`` satisfies ``Σ_m (v_m·ξ)^4 = 3M/(d(d+2)) |ξ|^4``,
  so ``Δ² f = d(d+2)/(3M) Σ_m D⁴f[v_m]``: ``M = 3`` directions at 0°, 60°, 120° in 2D, the 6 icosahedron axes in
  3D; for ``d ≥ 4``, ``Δ² = (1/6) Σ_{i<j} (D⁴[e_i+e_j] + D⁴[e_i-e_j]) + (1 - (d-1)/3) Σ_i D⁴[e_i]``. ``Δ`` uses the
  ``d`` unit directions. A 4-design is a 2-design, so ``Δ`` requested with ``Δ²`` costs nothing more;
- **reuse**: orders are planned from the highest down; a functional of order ``k`` is first expressed with the
  directions already carried to order ``≥ k`` (a least-squares solve of (1), accepted only when exact and
  when it does not amplify rounding errors by more than 10³);
- **collapse**: the coefficients of order ``k`` of directions of depth ``k`` are only read through the
  requested functionals; when these are fewer than the directions (one, or at most half), the weighted sums
  are carried as top channels (collapsed Taylor mode). A single channel's weights are folded into the
  directions (``y_k[s v] = s^k y_k[v]`` with ``s = (|w|/g)^{1/k}``), leaving additions and subtractions;
- **shared low orders** (split layout): order-1 coefficients of directions in the span of others are formed
  from a basis, and a single top channel of order ``K ≥ 3`` carries its order ``K-1`` as ``|basis|``
  semi-collapsed channels (see :mod:`.coef`);
- inhomogeneous operators are split by order; each order is planned as above and the parts are summed.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ..operators import LinearOperator, Request, biharmonic_op, multi_indices
from .coef import Layout

_TOL = 1e-10


@dataclass(frozen=True)
class Plan:
    """A propagation plan.

    ``directions[i]`` (a ``(d,)`` array, or ``None`` for a direction supplied at run time) is carried to
    order ``depth[i]``. ``channels[k]`` lists the top channels of order ``k``: tuples of ``(direction, weight)``.
    ``readout[request]`` lists terms ``(k, kind, index, weight)``: ``kind`` is ``"p"`` (the primal), ``"d"``
    (the order-``k`` coefficient of direction ``index``) or ``"t"`` (top channel ``index`` of order ``k``).
    """

    dim: int
    K: int
    directions: tuple
    depth: tuple[int, ...]
    channels: tuple  # ((k, ((dir, w), ...)), ...)
    readout: tuple  # ((request, ((k, kind, index, w), ...)), ...)
    derived: tuple = ()  # ((dir, ((basis dir, c), ...)), ...): order-1 coefficients formed from the basis
    pairs: tuple = ()  # ((k, r, ((basis dir, semi channel index at k-1), ...)), ...)

    @property
    def channel_map(self) -> dict:
        out: dict = {}
        for k, chan in self.channels:
            out.setdefault(k, []).append(chan)
        return out

    def n_channels(self) -> int:
        """Arrays of the primal's size carried per variable (primal, per-direction coefficients, channels)."""
        folded = {(k, d) for k, ch in self.channels for d, _ in ch}
        derived = {d for d, _ in self.derived}
        n = 1 + len(self.channels)
        for k in range(1, self.K + 1):
            n += sum(1 for d, D in enumerate(self.depth)
                     if k <= D and (k, d) not in folded and not (k == 1 and d in derived))
        return n

    def layout(self, stacked: bool = False) -> tuple[Layout, list[list[int]], dict]:
        """The :class:`Layout`, per block its directions (split: one per block; stacked: grouped by depth),
        and ``{direction: (block, row)}``."""
        return _layout(self, stacked)


@lru_cache(maxsize=256)
def _layout(plan: Plan, stacked: bool):
    chan = plan.channel_map
    folded_dirs = {k: {d for ch in chs for d, _ in ch} for k, chs in chan.items()}
    order = sorted(range(len(plan.directions)),
                   key=lambda i: (-plan.depth[i], i in folded_dirs.get(plan.depth[i], set()), i))
    blocks: list[tuple[tuple[int, bool], list[int]]] = []  # ((depth, folded), directions) per block
    for i in order:
        key = (plan.depth[i], i in folded_dirs.get(plan.depth[i], set()))
        if stacked and blocks and blocks[-1][0] == key:
            blocks[-1][1].append(i)
        else:
            blocks.append((key, [i]))
    where: dict[int, tuple[int, int]] = {}
    for b, (_, dirs) in enumerate(blocks):
        for r, i in enumerate(dirs):
            where[i] = (b, r)
    channels = {}
    folded = {}
    for k, chs in chan.items():
        channels[k] = tuple(tuple((where[d][0], where[d][1], w) for d, w in ch) for ch in chs)
        folded[k] = frozenset(where[d][0] for ch in chs for d, _ in ch)
    if stacked and (plan.derived or plan.pairs):
        raise ValueError("shared low orders need the split layout")
    derived = {where[i][0]: tuple((where[j][0], c) for j, c in spec) for i, spec in plan.derived}
    pairs: dict = {}
    for k, r, spec in plan.pairs:
        pairs.setdefault(k, []).append((r, tuple((where[j][0], sidx) for j, sidx in spec)))
    lay = Layout(K=plan.K, depth=tuple(key[0] for key, _ in blocks), rows=tuple(len(d) for _, d in blocks),
                 stacked=tuple(stacked for _ in blocks), channels=channels, folded=folded, derived=derived,
                 pairs={k: tuple(v) for k, v in pairs.items()})
    return lay, [d for _, d in blocks], where


# ---------------------------------------------------------------------------------------------------------
# Functionals and direction sets
# ---------------------------------------------------------------------------------------------------------

def functionals(request: Request, dim: int) -> dict[int, dict]:
    """``{k: {alpha: c}}``: the request split by order."""
    if isinstance(request, LinearOperator):
        out: dict[int, dict] = {}
        for a, c in request.terms:
            out.setdefault(sum(a), {})[tuple(a)] = float(c)
        return out
    alpha = tuple(request)
    return {sum(alpha): {alpha: 1.0}}


def _fact(alpha) -> int:
    return math.prod(math.factorial(a) for a in alpha)


def evaluation_matrix(dirs, k: int, dim: int, alphas=None) -> np.ndarray:
    """``A[α, v] = v^α / α!`` over ``α`` of order ``k`` (rows) and directions (columns): eq. (1)."""
    al = np.array(multi_indices(dim, k) if alphas is None else alphas, dtype=float).reshape(-1, dim)
    V = np.array(dirs, dtype=float).reshape(-1, dim)
    fact = np.array([_fact(a) for a in al.astype(int)], dtype=float)
    return np.prod(V[None, :, :] ** al[:, None, :], axis=2) / fact[:, None]


def _vector(F: dict, k: int, dim: int) -> np.ndarray:
    return np.array([F.get(a, 0.0) for a in multi_indices(dim, k)], float)


def _solve(A: np.ndarray, f: np.ndarray, max_amplification: float = 1e3):
    """Weights ``w`` with ``A w = f`` to rounding, or ``None`` when ``f`` is outside the span of ``A``'s
    columns or the combination would amplify rounding errors (``Σ|w_v| ‖A_v‖ / ‖f‖`` above the bound)."""
    if A.shape[1] == 0:
        return None
    w, *_ = np.linalg.lstsq(A, f, rcond=None)
    scale = max(np.abs(f).max(), 1e-300)
    if np.abs(A @ w - f).max() > _TOL * scale:
        return None
    w[np.abs(w) < 1e-13 * max(np.abs(w).max(), 1e-300)] = 0.0
    if np.sum(np.abs(w) * np.abs(A).max(axis=0)) > max_amplification * scale:
        return None
    return w


def _nodes(a: int) -> list[int]:
    """``a + 1`` symmetric integer nodes: ``-a/2..a/2`` (``a`` even) or ``-a, -a+2, …, a`` (``a`` odd)."""
    return list(range(-(a // 2), a // 2 + 1)) if a % 2 == 0 else list(range(-a, a + 1, 2))


def divided_difference(alpha) -> dict:
    """``{s: w}`` with ``∂^α f = Σ_s w y_k[s]`` (``k = |α|``) from a tensor divided difference.

    For the degree-``k`` form ``p(s) = D^k f[s] = k! y_k[s]`` the tensor-product divided difference over
    nodes ``T_m`` (``α_m + 1`` of them per coordinate) annihilates every monomial ``s^β ≠ s^α`` with ``|β| = k``
    (some ``β_m < α_m``) and maps ``s^α`` to 1; the coefficient of ``s^α`` is ``(k!/α!) ∂^α f``, so
    ``∂^α f = α! Σ_s Π_m w_m(s_m) y_k[s]`` with ``w_m(t_j) = 1/Π_{l≠j}(t_j - t_l)``. Symmetric nodes keep the
    weights small and make ``s`` and ``-s`` the same direction (``(2,2)`` needs 4 directions, ``(1,1)`` two).
    """
    dim = len(alpha)
    support = [m for m, a in enumerate(alpha) if a]
    grids = []
    for m in support:
        t = [Fraction(x) for x in _nodes(alpha[m])]
        wt = [1 / math.prod((t[j] - t[l] for l in range(len(t)) if l != j), start=Fraction(1)) for j in range(len(t))]
        grids.append(list(zip(t, wt)))
    scale = _fact(alpha)
    out: dict = {}
    for combo in itertools.product(*grids):
        if all(t == 0 for t, _ in combo):
            continue
        v = [0.0] * dim
        w = Fraction(scale)
        for m, (tm, wm) in zip(support, combo):
            v[m] = float(tm)
            w *= wm
        out[tuple(v)] = out.get(tuple(v), 0.0) + float(w)
    return out


def _candidates(support, dim: int, reach: int = 2) -> list[tuple]:
    """Integer directions with entries in ``[-reach, reach]`` on ``support``, one per line (canonical)."""
    out = []
    for vals in itertools.product(range(-reach, reach + 1), repeat=len(support)):
        nz = [x for x in vals if x]
        if not nz or nz[0] < 0 or math.gcd(*[abs(x) for x in nz]) != 1:
            continue
        v = [0.0] * dim
        for m, x in zip(support, vals):
            v[m] = float(x)
        out.append(tuple(v))
    return out


def fekete_directions(support, k: int, dim: int) -> list[tuple]:
    """A unisolvent, well-conditioned set of directions for the degree-``k`` forms on ``support``.

    Approximate Fekete points: column-pivoted QR of the evaluation matrix of candidate integer directions
    (normalised to the unit sphere) picks the columns of (nearly) maximal volume.
    """
    import scipy.linalg

    alphas = [a for a in multi_indices(dim, k) if all(a[m] == 0 for m in range(dim) if m not in support)]
    n = len(alphas)
    reach = 2
    while True:
        cands = _candidates(support, dim, reach)
        if len(cands) >= n:
            unit = [np.asarray(c) / np.linalg.norm(c) for c in cands]
            A = evaluation_matrix(unit, k, dim, alphas)
            _, _, piv = scipy.linalg.qr(A, pivoting=True, mode="economic")
            chosen = [cands[i] for i in piv[:n]]
            if np.linalg.matrix_rank(evaluation_matrix(chosen, k, dim, alphas)) == n:
                return chosen
        reach += 1


def _canonical(v) -> tuple[tuple, float]:
    """A canonical representative ``u`` of the line through ``v`` and ``c`` with ``v = c u``."""
    v = np.asarray(v, float)
    if np.allclose(v, np.round(v)):
        iv = np.round(v).astype(int)
        g = math.gcd(*[abs(int(a)) for a in iv])
        u = iv // g
        nz = u[np.nonzero(u)[0][0]]
        if nz < 0:
            u = -u
        c = float(np.dot(v, u) / np.dot(u, u))
        return tuple(float(a) for a in u), c
    n = np.linalg.norm(v)
    u = v / n
    if u[np.nonzero(np.abs(u) > 1e-12)[0][0]] < 0:
        u = -u
    c = float(np.dot(v, u))
    return tuple(float(a) for a in np.round(u, 15)), c


def _design(dim: int) -> tuple[list, float]:
    """Directions and the weight on ``D⁴f`` for ``Δ²`` (spherical 4-designs in 2D/3D)."""
    if dim == 2:
        dirs = [(math.cos(a), math.sin(a)) for a in (0.0, math.pi / 3, 2 * math.pi / 3)]
        dirs[0] = (1.0, 0.0)
        return [(d, dim * (dim + 2) / (3 * 3)) for d in dirs], 0
    if dim == 3:
        phi = (1 + math.sqrt(5)) / 2
        raw = [(0, 1, phi), (0, -1, phi), (1, phi, 0), (-1, phi, 0), (phi, 0, 1), (phi, 0, -1)]
        n = math.sqrt(1 + phi * phi)
        return [(tuple(a / n for a in v), dim * (dim + 2) / (3 * 6)) for v in raw], 0
    out = []
    for i, j in itertools.combinations(range(dim), 2):
        for s in (1, -1):
            v = [0.0] * dim
            v[i], v[j] = 1.0, float(s)
            out.append((tuple(v), 1.0 / 6.0))
    c = 1.0 - (dim - 1) / 3.0
    if c != 0:
        for i in range(dim):
            v = [0.0] * dim
            v[i] = 1.0
            out.append((tuple(v), c))
    return out, 0


def _proportional(F: dict, G: dict):
    """``c`` with ``F = c G`` (same keys), else ``None``."""
    if set(F) != set(G):
        return None
    ks = list(G)
    c = F[ks[0]] / G[ks[0]]
    if all(abs(F[a] - c * G[a]) <= 1e-14 * abs(c * G[a]) for a in ks):
        return c
    return None


def special_directions(F: dict, k: int, dim: int):
    """``{direction: weight}`` for pure partials (unit directions) and ``c Δ²`` (a spherical design)."""
    if all(sum(1 for a in alpha if a) == 1 for alpha in F):
        out: dict[tuple[float, ...], float] = {}
        for alpha, c in F.items():
            i = next(j for j, a in enumerate(alpha) if a)
            v = tuple(1.0 if j == i else 0.0 for j in range(dim))
            out[v] = out.get(v, 0.0) + c * math.factorial(k)
        return out
    if k == 4 and dim >= 2:
        c = _proportional(F, dict(biharmonic_op(dim).terms))
        if c is not None:
            dirs, _ = _design(dim)
            return {v: c * w * math.factorial(4) for v, w in dirs}
    return None


def general_directions(Fs: list, k: int, dim: int) -> tuple[list, list]:
    """Directions and per-functional weights for general functionals of order ``k``: the union of the tensor
    divided differences of their multi-indices, or a Fekete set on their joint support if that is smaller."""
    per: list = []
    union: set = set()
    for F in Fs:
        acc: dict = {}
        for alpha, c in F.items():
            for v, w in divided_difference(alpha).items():
                acc[v] = acc.get(v, 0.0) + c * w
        acc = _merge_parallel(acc, k)
        per.append(acc)
        union |= set(acc)
    support = sorted({m for F in Fs for alpha in F for m, a in enumerate(alpha) if a})
    if math.comb(len(support) + k - 1, k) < len(union):
        dirs = fekete_directions(support, k, dim)
        A = evaluation_matrix(dirs, k, dim)
        ws = [_solve(A, _vector(F, k, dim), max_amplification=1e8) for F in Fs]
        if all(w is not None for w in ws):
            return dirs, [{v: float(x) for v, x in zip(dirs, w) if x != 0} for w in ws]
    dirs = sorted(union)
    return dirs, per


def _merge_parallel(weights: dict, k: int) -> dict:
    out: dict = {}
    for v, w in weights.items():
        u, c = _canonical(v)
        out[u] = out.get(u, 0.0) + w * c ** k
    return {u: w for u, w in out.items() if abs(w) > 1e-13 * max(abs(x) for x in out.values())}


# ---------------------------------------------------------------------------------------------------------
# The planner
# ---------------------------------------------------------------------------------------------------------

class _Directions:
    """The directions chosen so far (canonical representatives) and their depths."""

    def __init__(self):
        self.dirs: list[np.ndarray] = []
        self.depth: list[int] = []
        self.index: dict = {}

    def copy(self) -> _Directions:
        c = _Directions()
        c.dirs, c.depth, c.index = list(self.dirs), list(self.depth), dict(self.index)
        return c

    @staticmethod
    def _key(u) -> tuple:
        return tuple(round(a, 9) + 0.0 for a in u)

    def add(self, weights_by_vector: dict, k: int) -> dict:
        """Merge ``{vector: weight}`` (for ``y_k``) into the set; weights per direction index."""
        out: dict = {}
        for v, x in weights_by_vector.items():
            u, c = _canonical(v)
            i = self.index.get(self._key(u))
            if i is None:
                i = len(self.dirs)
                self.dirs.append(np.asarray(u, float))
                self.index[self._key(u)] = i
                self.depth.append(k)
            else:
                self.depth[i] = max(self.depth[i], k)
            out[i] = out.get(i, 0.0) + x * c ** k
        return out

    def reuse(self, F: dict, k: int, dim: int):
        """Weights expressing ``F`` with directions already carried to order ``k``, or ``None``."""
        carried = [i for i in range(len(self.dirs)) if self.depth[i] >= k]
        if not carried:
            return None
        w = _solve(evaluation_matrix([self.dirs[i] for i in carried], k, dim), _vector(F, k, dim))
        return None if w is None else {i: float(x) for i, x in zip(carried, w) if x != 0}


@lru_cache(maxsize=256)
def make_plan(requests: tuple, dim: int, collapse: bool = True, share: bool = True) -> Plan:
    """Plan one propagation for all ``requests`` (multi-indices and linear operators) in ``dim`` dimensions.

    ``collapse``: fold top coefficients into channels; ``share``: derive order-1 coefficients from a basis and
    semi-collapse order ``K-1`` of single top channels (split layout only).
    """
    funcs = {r: functionals(r, dim) for r in requests}
    K = max([k for f in funcs.values() for k in f] + [0])
    st = _Directions()
    uses: dict = {}  # (request, k) -> {dir: weight}
    for k in range(K, 0, -1):
        todo = [(r, funcs[r][k]) for r in requests if funcs[r].get(k)]
        if not todo:
            continue
        # Option 1: special functionals bring their own directions, the others reuse or interpolate.
        opt = st.copy()
        got1 = {}
        rest = []
        for r, F in todo:
            special = special_directions(F, k, dim)
            if special is not None and opt.reuse(F, k, dim) is None:
                got1[r] = opt.add(special, k)
            else:
                rest.append((r, F))
        general = []
        for r, F in rest:
            w = opt.reuse(F, k, dim)
            if w is not None:
                got1[r] = w
            else:
                general.append((r, F))
        if general:
            _, weights = general_directions([F for _, F in general], k, dim)
            for (r, _), w in zip(general, weights):
                got1[r] = opt.add(w, k)
        # Option 2: one well-conditioned unisolvent set for everything not already expressible.
        alone = [(r, F) for r, F in todo if st.reuse(F, k, dim) is None]
        support = sorted({m for _, F in alone for alpha in F for m, a in enumerate(alpha) if a})
        if alone and math.comb(len(support) + k - 1, k) < len(opt.dirs) - len(st.dirs):
            fek = fekete_directions(support, k, dim)
            A = evaluation_matrix(fek, k, dim)
            ws = [_solve(A, _vector(F, k, dim), max_amplification=1e8) for _, F in alone]
            if all(w is not None for w in ws):
                opt2 = st.copy()
                got2 = {r: opt2.add({v: float(x) for v, x in zip(fek, w) if x != 0}, k)
                        for (r, _), w in zip(alone, ws)}
                for r, F in todo:
                    if r not in got2:
                        got2[r] = opt2.reuse(F, k, dim)
                if all(w is not None for w in got2.values()) and len(opt2.dirs) < len(opt.dirs):
                    opt, got1 = opt2, got2
        st = opt
        for r, w in got1.items():
            uses[(r, k)] = w
    dirs, depth = st.dirs, st.depth
    # Collapse: order-k coefficients of depth-k directions into top channels.
    scale = [1.0] * len(dirs)
    channels = []
    single: list = []  # (k, channel index r, {dir: sign}) of single top channels
    top_of: dict = {}  # (request, k) -> (channel index within order k, weight g)
    for k in range(1, K + 1):
        at_depth = [i for i in range(len(dirs)) if depth[i] == k]
        users = [(r, k) for r in requests if (r, k) in uses and any(i in uses[(r, k)] for i in at_depth)]
        # Folding costs R·M multiply-adds per nonlinear operation and saves M - R channels; one channel (pure
        # additions after weight folding) always pays, several only when they are at most half the directions.
        if not collapse or not users or len(at_depth) < 2 or (len(users) > 1 and 2 * len(users) > len(at_depth)):
            continue
        if len(users) == 1:
            (rk,) = users
            channel = {i: uses[rk][i] for i in at_depth if i in uses[rk]}
            g = max(abs(x) for x in channel.values())
            signs: list[tuple[int, float]] = []
            for i, x in channel.items():
                scale[i] = (abs(x) / g) ** (1.0 / k)
                signs.append((i, 1.0 if x > 0 else -1.0))
            channels.append((k, tuple(signs)))
            top_of[rk] = (0, g)
            single.append((k, 0, dict(signs)))
        else:
            for r_idx, rk in enumerate(users):
                chan = tuple((i, uses[rk][i]) for i in at_depth if i in uses[rk])
                channels.append((k, chan))
                top_of[rk] = (r_idx, 1.0)
        # directions of depth k not used by any channel stay individual (unused at order k anyway)
    # Rescaled directions: y_j[s v] = s^j y_j[v].
    directions = tuple(tuple(float(a) for a in dirs[i] * scale[i]) for i in range(len(dirs)))
    derived, pairs = (), ()
    if share and dirs:
        derived, extra, pairs = _share(directions, depth, channels, single, uses, top_of, K)
        channels = channels + list(extra)
    readout = []
    for r in requests:
        terms = []
        for k, F in sorted(funcs[r].items()):
            if k == 0:
                terms.append((0, "p", 0, sum(F.values())))
                continue
            u = uses[(r, k)]
            top = top_of.get((r, k))
            for i, x in u.items():
                if top is not None and depth[i] == k:
                    continue
                terms.append((k, "d", i, x / scale[i] ** k))
            if top is not None:
                terms.append((k, "t", top[0], top[1]))
        readout.append((r, tuple(terms)))
    return Plan(dim=dim, K=K, directions=directions, depth=tuple(depth), channels=tuple(channels),
                readout=tuple(readout), derived=derived, pairs=pairs)


def _tidy(x: float) -> float:
    """Round weights within rounding error of an integer (so that ±1 costs no multiplication)."""
    r = round(float(x))
    return float(r) if abs(x - r) < 1e-12 * max(1.0, abs(x)) else float(x)


def _share(directions, depth, channels, single, uses, top_of, K):
    """Order-1 basis (derived directions) and semi-collapsed order ``k-1`` for single top channels."""
    V = np.array(directions, float)
    basis: list[int] = []
    for i in sorted(range(len(V)), key=lambda i: -depth[i]):
        cand = basis + [i]
        if np.linalg.matrix_rank(V[cand], tol=1e-10) == len(cand):
            basis.append(i)
    B = V[basis]
    coords = {}
    for i in range(len(V)):
        if i in basis:
            coords[i] = {i: 1.0}
            continue
        c, *_ = np.linalg.lstsq(B.T, V[i], rcond=None)
        assert np.abs(B.T @ c - V[i]).max() < 1e-10
        coords[i] = {basis[j]: _tidy(x) for j, x in enumerate(c) if abs(x) > 1e-14}
    derived = tuple((i, tuple(coords[i].items())) for i in range(len(V)) if i not in basis)
    # Semi-collapse: S_j = Σ_v ω_v c_{v,j} y_{k-1}[v] for a single top channel of order k ≥ 3 whose directions'
    # order k-1 coefficients are read by nobody else.
    extra: list[tuple[int, tuple]] = []
    pairs: list[tuple[int, int, tuple]] = []
    read_at = {(k, i) for (r, k), u in uses.items() for i in u if (r, k) not in top_of or depth[i] != k}
    for k, r, signs in single:
        if k < 3:
            continue
        D = list(signs)
        if any((k - 1, i) in read_at for i in D):
            continue
        used = sorted({j for i in D for j in coords[i]})
        if len(used) >= len(D):
            continue
        n_prev = sum(1 for kk, _ in channels if kk == k - 1) + sum(1 for kk, _ in extra if kk == k - 1)
        spec = []
        for s, j in enumerate(used):
            chan = tuple((i, signs[i] * coords[i][j]) for i in D if j in coords[i])
            extra.append((k - 1, chan))
            spec.append((j, n_prev + s))
        pairs.append((k, r, tuple(spec)))
    return derived, tuple(extra), tuple(pairs)
