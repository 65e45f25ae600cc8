"""Every rule of the Taylor engine at special points, to order 4, against nested ``jax.jacfwd`` in float64.

A case is a pointwise ``f: (..., d) -> (...)`` built around one primitive (its operands are coordinates of the
point, or smooth functions of them, so that every order is exercised) and a few points: zero, ``±1``, tiny and
large magnitudes, the edges of the primitive's domain, ties for the piecewise ones. At each point the engine's
Taylor coefficients along the curve ``x + t v`` (one propagation for all points of a case; ``v`` moves every
operand at its own speed, so ties are left in different directions) are compared, order by order, with nested
forward-mode JAX in ``t`` (:func:`~autodiff.ad_helpers.curve_derivatives`: ``jax.jacfwd`` of a scalar, without
its basis ``vmap``, which made the sweep five times slower to trace). Where JAX itself has no finite value, the
point and order are on :data:`UNDEFINED` with the reason and what the engine gives there; the test checks that
each entry is still needed. The public entry points (mixed partials by the plan, per-point calls under
``jax.vmap``) are checked against the tensors of nested ``jax.jacfwd`` at the points of issue 67.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from autodiff.ad_helpers import curve_derivatives, jacfwd_tensors, run_fast
from sciml import autodiff as ad
from sciml.autodiff import taylor

ORDER = 4
RTOL = 1e-12  # relative to the largest derivative of order ≤ k at the point (JAX's)
V = (1.0, -0.7, 0.45)  # the direction of the curves (its first d components)
TINY, LARGE = 1e-8, 1e8
HALF_PI = math.pi / 2  # tan's pole, as near as float64 gets

MESH = jax.make_mesh((1,), ("i",), axis_types=(AxisType.Auto,))
REPLICATED = NamedSharding(MESH, P())


@dataclass(frozen=True)
class Case:
    """``f`` at ``points`` (each a tuple of ``d`` coordinates); ``mapped``: evaluated inside a one-device
    ``shard_map`` (collectives need their axis ``"i"`` bound)."""

    f: object
    points: tuple
    mapped: bool = False


def label(point) -> str:
    return ", ".join(f"{v:.12g}" for v in point)


def unary(fn, *values):
    """``fn`` of the first coordinate at the points ``values``."""
    return Case(lambda p: fn(p[..., 0]), tuple((float(v),) for v in values))


def binary(fn, *points):
    return Case(lambda p: fn(p[..., 0], p[..., 1]), tuple(points))


def ternary(fn, *points):
    return Case(lambda p: fn(p[..., 0], p[..., 1], p[..., 2]), tuple(points))


def last_axis(fn, *points, mapped=False):
    """``sum(fn(p)**2)`` with ``fn`` acting on the coordinates' axis (structural primitives)."""
    return Case(lambda p: jnp.sum(fn(p) ** 2, axis=-1), tuple(points), mapped)


S = jnp.sinh  # smooth operands with derivatives of every order, equal where the coordinates are equal
EDGES = (0.0, 1.0, -1.0, TINY, -TINY)
STRUCT = ((0.0, 0.0), (1.0, -1.0), (TINY, 2.0))
CLAMP = {  # (lo, x, hi)
    "inside": (-1.0, 0.0, 1.0), "below": (-1.0, -2.0, 1.0), "above": (-1.0, 2.0, 1.0),
    "x = lo": (-1.0, -1.0, 1.0), "x = hi": (-1.0, 1.0, 1.0), "all equal": (0.0, 0.0, 0.0),
    "lo > hi, x between": (1.0, 0.0, -1.0), "lo > hi, x above": (1.0, 2.0, -1.0),
    "lo > hi, x below": (1.0, -2.0, -1.0), "lo > hi, x = hi": (1.0, -1.0, -1.0), "lo > hi, x = lo": (1.0, 1.0, -1.0),
}
TIES = ((0.0, 0.0), (1.0, 1.0), (-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (TINY, 0.0))


def _conv(p):
    x = p.reshape((-1, 1, p.shape[-1]))
    k = jnp.array([[[0.5, -1.0, 2.0]]])
    return lax.conv_general_dilated(S(x), k, (1,), "SAME").reshape(p.shape) * p


def _collectives(p):
    return lax.psum(S(p), "i") * lax.all_gather(p ** 2, "i", axis=p.ndim - 1, tiled=True)


CASES = {
    # arithmetic
    "add_sub_neg": binary(lambda a, b: -(S(a) + b) - S(b) * a, *TIES),
    "mul": binary(lambda a, b: a * b * S(a * b), *TIES),
    "div": binary(lambda a, b: a / b, (1.0, 0.0), (0.0, 0.0), (0.0, 1.0), (1.0, TINY), (LARGE, -1.0), (1.0, -1.0)),
    "div_const": unary(lambda a: S(a) / 3.0, 0.0, 1.0),
    "square": unary(jnp.square, *EDGES, LARGE),
    "dot_general": last_axis(lambda p: S(p @ jnp.array([[1.0, 2.0], [-1.0, 0.5]]))
                             * jnp.einsum("...i,...i->...", p, p)[..., None], *STRUCT),
    "conv": last_axis(_conv, *STRUCT),
    "add_any": last_axis(lambda p: jax.grad(lambda q: jnp.sum(jnp.sin(q) * q * q))(p), *STRUCT),
    # analytic functions
    "exp": unary(jnp.exp, *EDGES, 30.0, -30.0),
    "expm1": unary(jnp.expm1, *EDGES, 30.0, -30.0),
    "exp2": unary(jnp.exp2, *EDGES, 30.0, -30.0),
    "log": unary(jnp.log, 0.0, TINY, 1.0, LARGE),
    "log1p": unary(jnp.log1p, *EDGES, LARGE),
    "sin": unary(jnp.sin, *EDGES, 1e4),
    "cos": unary(jnp.cos, *EDGES, 1e4),
    "tan": unary(jnp.tan, *EDGES, HALF_PI),
    "sinh": unary(jnp.sinh, *EDGES, 30.0, -30.0),
    "cosh": unary(jnp.cosh, *EDGES, 30.0, -30.0),
    "tanh": unary(jnp.tanh, *EDGES, 30.0, -30.0),
    "logistic": unary(jax.nn.sigmoid, *EDGES, 40.0, -40.0),
    "atan": unary(jnp.arctan, *EDGES, LARGE),
    "asinh": unary(jnp.arcsinh, *EDGES, LARGE),
    "atanh": unary(jnp.arctanh, 0.0, TINY, 0.5, -0.5, 1.0, -1.0),
    "asin": unary(jnp.arcsin, 0.0, TINY, 0.5, -0.5, 1.0, -1.0),
    "acos": unary(jnp.arccos, 0.0, TINY, 0.5, -0.5, 1.0, -1.0),
    "acosh": unary(jnp.arccosh, 1.0, 1.0 + 1e-8, 2.0, LARGE),
    "erf": unary(lax.erf, *EDGES, 6.0, -30.0),
    "erfc": unary(lax.erfc, *EDGES, 6.0, 30.0),
    "sqrt": unary(jnp.sqrt, 0.0, TINY, 1.0, LARGE),
    "rsqrt": unary(lax.rsqrt, 0.0, TINY, 1.0, LARGE),
    "cbrt": unary(jnp.cbrt, *EDGES, LARGE),
    # powers: integer_pow, and pow with a constant (integer-valued or not) and a variable exponent
    "x**2": unary(lambda a: a ** 2, *EDGES, LARGE),
    "x**5": unary(lambda a: a ** 5, *EDGES, 1e4),
    "x**-1": unary(lambda a: a ** -1, *EDGES, LARGE),
    "x**-2": unary(lambda a: a ** -2, *EDGES, LARGE),
    "x**0.0": unary(lambda a: a ** 0.0, *EDGES),
    "x**1.0": unary(lambda a: a ** 1.0, *EDGES),
    "x**2.0": unary(lambda a: a ** 2.0, *EDGES, LARGE),
    "x**3.0": unary(lambda a: a ** 3.0, *EDGES, LARGE),
    "x**-1.0": unary(lambda a: a ** -1.0, *EDGES, LARGE),
    "x**0.5": unary(lambda a: a ** 0.5, 0.0, TINY, 1.0, LARGE),
    "x**2.5": unary(lambda a: a ** 2.5, 0.0, TINY, 1.0, LARGE),
    "x**-1.5": unary(lambda a: a ** -1.5, 0.0, TINY, 1.0, LARGE),
    "|x|**2.5": unary(lambda a: jnp.abs(a) ** 2.5, *EDGES),
    "x**y": binary(lambda a, b: a ** b, (0.0, 0.0), (0.0, 1.0), (0.0, 2.0), (0.0, 2.5), (0.0, 4.5), (1.0, 0.0),
                   (2.0, 0.5), (1.0, -1.0), (TINY, 2.0)),
    "2**x": unary(lambda a: 2.0 ** a, *EDGES, 30.0),
    # piecewise
    "max": binary(lambda a, b: jnp.maximum(S(a), S(b)), *TIES),
    "min": binary(lambda a, b: jnp.minimum(S(a), S(b)), *TIES),
    "abs": unary(lambda a: jnp.abs(S(a)), *EDGES),
    "clamp": ternary(lambda lo, x, hi: lax.clamp(S(lo), S(x), S(hi)), *CLAMP.values()),
    "select_n": ternary(lambda c, a, b: jnp.where(c > 0, S(a), jnp.cosh(b)), (0.0, 1.0, -1.0), (TINY, 1.0, -1.0),
                        (-TINY, 1.0, -1.0), (0.0, 0.0, 0.0)),
    "select_n_3": ternary(lambda c, a, b: lax.select_n((c > 0).astype(jnp.int32) + (c > 1).astype(jnp.int32), S(a),
                                                       jnp.cosh(b), a * b), (0.0, 1.0, -1.0), (1.0, 1.0, -1.0),
                          (2.0, 1.0, -1.0)),
    "rem": binary(lambda a, b: jnp.fmod(a, b) * S(b), (1.0, 1.0), (2.0, 1.0), (0.0, 1.0), (-1.0, 0.5), (0.5, 1.0),
                  (1.5, -0.5), (1.0, 0.0)),
    "zero_derivative": unary(lambda a: jnp.sign(a) + jnp.floor(a) + jnp.ceil(a) * a + jnp.round(a) * S(a)
                             + lax.stop_gradient(a) * a, 0.0, 0.5, -0.5, 1.0, 2.5),
    "reduce_max": last_axis(lambda p: jnp.max(S(p), axis=-1, keepdims=True) * p, (0.0, 0.0, 0.0), (1.0, 1.0, 0.0),
                            (1.0, 0.0, -1.0)),
    "reduce_min": last_axis(lambda p: jnp.min(S(p), axis=-1, keepdims=True) * p, (0.0, 0.0, 0.0), (0.0, 1.0, 1.0),
                            (1.0, 0.0, -1.0)),
    # linear maps
    "shapes": last_axis(lambda p: jnp.swapaxes(S(p).reshape(p.shape + (1,)), -1, -2).reshape(p.shape)[..., ::-1]
                        * jnp.broadcast_to(p[..., :1], p.shape), *STRUCT),
    "slice_concat_pad": last_axis(lambda p: jnp.concatenate([S(p[..., 1:]), jnp.pad(p ** 2, [(0, 0)] * (p.ndim - 1)
                                                                                         + [(1, 1)])], -1), *STRUCT),
    "dynamic_slices": last_axis(lambda p: lax.dynamic_update_slice_in_dim(
        S(p), lax.dynamic_slice_in_dim(p ** 3, 1, 1, axis=-1), 0, axis=-1), *STRUCT),
    "gather_scatter": last_axis(lambda p: S(p)[..., jnp.array([1, 0, 1])].at[..., 1].set(p[..., 0] ** 3)
                                .at[..., 2].add(p[..., 1] ** 2), *STRUCT),
    "reduce_sum_cumsum": last_axis(lambda p: jnp.cumsum(S(p), -1) * jnp.sum(p ** 2, -1, keepdims=True), *STRUCT),
    "stack_tile_split": last_axis(lambda p: jnp.concatenate(
        jnp.split(jnp.stack(jnp.unstack(jnp.tile(S(p), 2), axis=-1)[::-1], -1), 2, -1)[::-1], -1) * jnp.tile(p, 2),
        *STRUCT),
    "complex_fft": last_axis(lambda p: jnp.real(jnp.fft.fft(S(p).astype(jnp.complex128))
                                                * jnp.conj(lax.complex(p, p ** 2))) + jnp.imag(lax.complex(p, S(p))),
                             *STRUCT),
    "copy_precision_barrier": last_axis(lambda p: sum(lax.optimization_barrier((jnp.copy(S(p)), lax.reduce_precision(
        p ** 3, 11, 52)))), *STRUCT),
    "placement": last_axis(lambda p: jax.device_put(S(p)) * lax.with_sharding_constraint(p ** 2, REPLICATED)
                           + jax.sharding.reshard(p ** 3, REPLICATED), *STRUCT),
    "collectives": last_axis(_collectives, *STRUCT, mapped=True),
}

# Rules no case reaches, and why (the coverage test fails when one of them is reached, or any other is not).
UNSWEPT = {
    **{name: "no primitive of the installed JAX has this name (a spelling of other JAX versions)"
       for name in ("copy_p", "expand_dims", "mesh_cast", "reduce_and_scatter", "scatter_add")},
    "nextafter": "JAX defines no derivative of nextafter (nested jax.jacfwd raises): nothing to compare with; "
                 "test_taylor_rules checks that the engine gives zero derivatives",
}


@dataclass(frozen=True)
class Undefined:
    """JAX has no finite value at one order at one point (for a derivative tensor: or one that depends on the order
    of differentiation); ``why`` says why. ``engine``: the engine's value there, finite and right (checked
    exactly); ``None``: the engine has no finite value where JAX has none either."""

    why: str
    engine: float | None = None


def orders(first: int, why: str, engine: float | None = None, last: int = ORDER) -> dict:
    """The same entry for the orders ``first..last``."""
    return {k: Undefined(why, engine) for k in range(first, last + 1)}


POLYNOMIAL = ("x^r with r a known non-negative integer is a polynomial: its derivatives beyond the degree are 0 "
              "(the engine's, exactly); JAX's derivative r x^(r-1), nested, has 0 · 0^(-1) = 0 · ∞ = NaN there")
VARIABLE_EXPONENT = ("x^p with p varying: beyond order p_0 the derivatives hold x^(p_0-k) and log x, infinite at "
                     "x = 0; JAX's nested derivative is 0 · ∞ = NaN or ∞ there, the engine's NaN or ∞")
# (case, point label) -> {order: Undefined}: JAX has no finite value there (checked: each entry is needed)
UNDEFINED: dict = {
    ("log", "0"): orders(0, "log 0 = -∞, and log's derivatives (-1)^(m-1) (m-1)! / x^m are infinite at 0"),
    ("log1p", "-1"): orders(0, "log1p(-1) = log 0 = -∞: log's pole"),
    ("sqrt", "0"): orders(1, "√x has the derivative 1 / (2√x), infinite at 0, the end of the domain"),
    ("rsqrt", "0"): orders(0, "1/√0 = ∞: a pole"),
    ("cbrt", "0"): orders(1, "∛x has the derivative 1 / (3 x^(2/3)), infinite at 0"),
    ("asin", "1"): orders(1, "asin' = 1/√(1 - x²) is infinite at 1, the end of the domain"),
    ("asin", "-1"): orders(1, "asin' = 1/√(1 - x²) is infinite at -1, the end of the domain"),
    ("acos", "1"): orders(1, "acos' = -1/√(1 - x²) is infinite at 1, the end of the domain"),
    ("acos", "-1"): orders(1, "acos' = -1/√(1 - x²) is infinite at -1, the end of the domain"),
    ("acosh", "1"): orders(1, "acosh' = 1/√(x² - 1) is infinite at 1, the end of the domain"),
    ("atanh", "1"): orders(0, "atanh 1 = ∞, and atanh' = 1/(1 - x²) is infinite there"),
    ("atanh", "-1"): orders(0, "atanh -1 = -∞, and atanh' = 1/(1 - x²) is infinite there"),
    ("div", "1, 0"): orders(0, "1 / 0 = ∞: a / b and its derivatives have a pole at b = 0"),
    ("div", "0, 0"): orders(0, "0 / 0 is NaN"),
    ("rem", "1, 0"): orders(0, "fmod(a, 0) is NaN (C's fmod), and so is its derivative in b, -trunc(a / b)"),
    ("x**-1", "0"): orders(0, "x^(-1) has a pole at 0"),
    ("x**-2", "0"): orders(0, "x^(-2) has a pole at 0"),
    ("x**-1.0", "0"): orders(0, "x^(-1.0) has a pole at 0"),
    ("x**-1.5", "0"): orders(0, "x^(-1.5) has a pole at 0"),
    ("x**0.5", "0"): orders(1, "binom(0.5, m) x^(0.5-m) is infinite at 0 for every m ≥ 1"),
    ("x**2.5", "0"): orders(3, "binom(2.5, m) x^(2.5-m) is infinite at 0 for m ≥ 3"),
    ("|x|**2.5", "0"): orders(3, "binom(2.5, m) |x|^(2.5-m) is infinite at 0 for m ≥ 3"),
    ("x**0.0", "0"): orders(1, POLYNOMIAL, engine=0.0),
    ("x**1.0", "0"): orders(2, POLYNOMIAL, engine=0.0),
    ("x**2.0", "0"): orders(3, POLYNOMIAL, engine=0.0),
    ("x**3.0", "0"): orders(4, POLYNOMIAL, engine=0.0),
    ("x**y", "0, 0"): orders(1, VARIABLE_EXPONENT),
    ("x**y", "0, 1"): orders(2, VARIABLE_EXPONENT),
    ("x**y", "0, 2"): orders(3, VARIABLE_EXPONENT),
    ("x**y", "0, 2.5"): orders(3, VARIABLE_EXPONENT),
}


def curve(case: Case):
    """``x -> (engine, JAX)``, each ``[f, d/dt f, …, d⁴/dt⁴ f]`` of ``t -> f(x + t v)`` at ``t = 0`` per point: the
    engine's Taylor propagation (:func:`~sciml.autodiff.taylor.jet`) and nested forward-mode JAX in ``t``."""

    def both(x):
        v = jnp.asarray(V[: x.shape[-1]], x.dtype)
        vs = jnp.broadcast_to(v, x.shape)
        y0, ys = taylor.jet(case.f, (x,), ([vs] + [jnp.zeros_like(x)] * (ORDER - 1),))
        return [y0] + ys, curve_derivatives(case.f, v, ORDER)(x)

    if case.mapped:
        return jax.shard_map(both, mesh=MESH, in_specs=P(), out_specs=P(), check_vma=False)
    return both


def evaluate(names) -> dict:
    """``{name: (engine, JAX)}`` for the cases ``names`` (arrays ``(order + 1, points)``), compiled as one program."""
    run = lambda _: {name: curve(CASES[name])(jnp.asarray(CASES[name].points, jnp.float64)) for name in names}
    return {name: (np.stack(eng), np.stack(ref)) for name, (eng, ref) in run_fast(run, 0).items()}


def disagreements(name: str, point: str, eng, ref, undefined: dict) -> list[str]:
    """Messages for one point: ``eng``, ``ref`` the engine's and JAX's values by order (arrays of any shape, e.g.
    derivative tensors; JAX's must be finite and symmetric, or the order on ``undefined``)."""
    out = []
    for k, (e, j) in enumerate(zip(eng, ref)):
        where = f"{name} at ({point}), order {k}"
        e, j = np.asarray(e), np.asarray(j)
        finite = [np.asarray(r)[np.isfinite(r)] for r in ref[: k + 1]]
        scale = max(np.max(np.abs(r), initial=0.0) for r in finite)
        both = np.isfinite(e) & np.isfinite(j)
        close = np.abs(np.subtract(e, j, out=np.zeros(e.shape), where=both)) <= RTOL * scale
        entry = undefined.get(k)
        defined = bool(np.all(np.isfinite(j))) and symmetric(j)
        if entry is None:
            if not defined:
                out.append(f"{where}: JAX has no value ({j.ravel()}); list it on UNDEFINED with the reason")
            elif not np.all(both & close):
                out.append(f"{where}: engine {e.ravel()} != JAX {j.ravel()}")
        elif defined:
            out.append(f"{where}: JAX is finite here ({j.ravel()}), the UNDEFINED entry is stale")
        elif entry.engine is not None:
            if not np.all(e == entry.engine):
                out.append(f"{where}: engine {e.ravel()}, UNDEFINED says {entry.engine}")
        elif np.any(np.isfinite(e) & ~np.isfinite(j)):
            out.append(f"{where}: engine {e.ravel()} is finite where JAX ({j.ravel()}) is not")
        elif symmetric(j) and not np.all(close):
            out.append(f"{where}: engine {e.ravel()} != JAX {j.ravel()} where both are finite")
    return out


def symmetric(t) -> bool:
    """Whether a derivative tensor is symmetric in its coordinates (to rounding; NaNs equal)."""
    scale = np.max(np.abs(t[np.isfinite(t)]), initial=0.0)
    return all(np.allclose(t, np.transpose(t, perm), rtol=0, atol=RTOL * scale, equal_nan=True)
               for perm in itertools.permutations(range(np.ndim(t))))


def engine_tensors(values: dict, d: int) -> list:
    """The engine's partials ``{multi-index: (N,)}`` as derivative tensors ``[(N,), (N, d), (N, d, d), …]``."""
    out = []
    for k in range(ORDER + 1):
        cols = [values.get(tuple(ix.count(i) for i in range(d))) for ix in itertools.product(range(d), repeat=k)]
        if any(c is None for c in cols):
            break
        out.append(np.stack([np.asarray(c) for c in cols], -1).reshape((-1,) + (d,) * k))
    return out


GROUPS = 2


@pytest.mark.parametrize("group", range(GROUPS))
def test_every_rule_at_special_points(group):
    names = sorted(CASES)[group::GROUPS]
    errors = []
    for name, (eng, ref) in evaluate(names).items():
        for i, point in enumerate(CASES[name].points):
            errors += disagreements(name, label(point), eng[:, i], ref[:, i], UNDEFINED.get((name, label(point)), {}))
    assert not errors, "\n".join(errors)


def test_every_rule_is_swept(monkeypatch):
    """The cases reach every rule of the table except those on UNSWEPT (order 1 suffices to reach a rule)."""
    reached = set()

    def spy(name, rule):
        def traced(*args):
            reached.add(name)
            return rule(*args)

        return traced

    for name, rule in list(taylor.RULES.items()):
        monkeypatch.setitem(taylor.RULES, name, spy(name, rule))
    for case in CASES.values():
        first = lambda x, case=case: taylor.jet(case.f, (x,), ([jnp.ones_like(x)],))
        if case.mapped:
            first = jax.shard_map(first, mesh=MESH, in_specs=P(), out_specs=P(), check_vma=False)
        jax.make_jaxpr(first)(jnp.asarray(case.points, jnp.float64))
    assert reached & set(UNSWEPT) == set()
    assert set(taylor.RULES) - reached == set(UNSWEPT)


def test_undefined_entries_name_existing_points():
    for (name, point), entries in UNDEFINED.items():
        assert point in {label(p) for p in CASES[name].points}, (name, point)
        assert set(entries) <= set(range(ORDER + 1)), (name, point)


# ---------------------------------------------------------------------------------------------------------
# The public entry points: mixed partials from the plan, batched and per point under jax.vmap
# ---------------------------------------------------------------------------------------------------------

ISSUE_ROWS = {  # issue 67: Laplacians that were NaN where nested jax.jacfwd is finite; point, value
    "x**2.0 + y": (lambda x, y: x ** 2.0 + y, (0.0, 0.3), 2.0),
    "x**3.0 * y": (lambda x, y: x ** 3.0 * y, (0.0, 0.3), 0.0),
    "abs(x)**2.5 + y**2": (lambda x, y: jnp.abs(x) ** 2.5 + y ** 2, (0.0, 0.3), 2.0),
    "jnp.power(x, 2.0) + y": (lambda x, y: jnp.power(x, 2.0) + y, (0.0, 0.3), 2.0),
    "(x**2 + y**2)**2.0": (lambda x, y: (x ** 2 + y ** 2) ** 2.0, (0.0, 0.0), 0.0),
}


def test_issue_rows_laplacian_batched_and_per_point():
    def run(_):
        out = {}
        for name, (fn, point, _) in ISSUE_ROWS.items():
            f = lambda p, fn=fn: fn(p[..., 0], p[..., 1])
            x = jnp.asarray([point])
            hess = jacfwd_tensors(f, 2)(x)[2]
            out[name] = (ad.laplacian(f)(x), jax.vmap(ad.laplacian(f))(x), hess[..., 0, 0] + hess[..., 1, 1])
        return out

    for name, (batched, per_point, nested) in run_fast(run, 0).items():
        value = ISSUE_ROWS[name][2]
        assert float(nested[0]) == value, name
        assert float(batched[0]) == value and float(per_point[0]) == value, (name, batched, per_point)


def partials_against_jacfwd(name: str, f, x, order: int, undefined=None) -> list[str]:
    """The disagreements of every partial of order ≤ ``order`` of ``f`` at the points ``x`` (the engine's, batched
    and per point under ``jax.vmap``) with the tensors of nested ``jax.jacfwd``; the per-point call must give
    the batched call's numbers bitwise."""
    d = x.shape[-1]
    reqs = [tuple(a) for k in range(order + 1) for a in ad.multi_indices(d, k)]
    batched, per_point, ref = run_fast(lambda x: (ad.derivatives(f, reqs)(x), jax.vmap(ad.derivatives(f, reqs))(x),
                                                  jacfwd_tensors(f, order)(x)), x)
    errors = [f"{name}: the per-point call differs from the batched one at {r}" for r in reqs
              if not np.array_equal(batched[r], per_point[r], equal_nan=True)]
    eng, ref = engine_tensors(batched, d), [np.asarray(t) for t in ref]
    for i, point in enumerate(np.asarray(x)):
        entries = (undefined or {}).get(label(point), {})
        errors += disagreements(name, label(point), [t[i] for t in eng], [t[i] for t in ref], entries)
    return errors


def test_variable_exponent_partials():
    """``x ** y`` at its points of the sweep, every partial of order ≤ 4 (the same entries undefined)."""
    case = CASES["x**y"]
    undefined = {point: entries for (name, point), entries in UNDEFINED.items() if name == "x**y"}
    errors = partials_against_jacfwd("x**y", case.f, jnp.asarray(case.points), ORDER, undefined)
    assert not errors, "\n".join(errors)


def test_clamp_with_lo_above_hi():
    """``clamp(lo, x, hi)`` with ``lo > hi`` in some entries (JAX then returns ``hi``; random inputs, as in JAX's
    own ``jet_test``): every partial of order ≤ 2 (the sweep has the ties, along curves)."""
    f = lambda p: lax.clamp(jnp.sin(p[..., 0]), p[..., 1] * 0.7 + p[..., 0], jnp.cos(p[..., 2]))
    x = np.random.default_rng(0).normal(size=(16, 3))
    lo, hi = np.sin(x[:, 0]), np.cos(x[:, 2])
    assert (lo > hi).any() and (lo < hi).any()
    errors = partials_against_jacfwd("clamp", f, jnp.asarray(x), 2)
    assert not errors, "\n".join(errors)


def test_sinc_at_zero():
    """``jnp.sinc`` (a ``custom_jvp`` rule, its Maclaurin branch at 0) to order 4, batched and per point."""
    f = lambda p: jnp.sinc(p[..., 0])
    errors = partials_against_jacfwd("sinc", f, jnp.asarray([[0.0], [-0.0], [0.5], [1.0]]), ORDER)
    assert not errors, "\n".join(errors)


def test_traced_exponent_is_the_known_one():
    """``x ** r`` with ``r`` traced (an argument of the compiled function, so no ``integer_pow`` path) has the
    coefficients of the known exponent, which the sweep checks against JAX: a polynomial's zeros at ``x = 0``."""
    exponents = (0.0, 1.0, 2.0, 3.0, 2.5, -1.0)
    x = jnp.asarray(EDGES)[:, None]
    v = [jnp.ones_like(x)] + [jnp.zeros_like(x)] * (ORDER - 1)

    def run(rs):
        series = lambda f: (lambda y0, ys: jnp.stack([y0] + ys))(*taylor.jet(f, (x,), (v,)))
        return [(series(lambda p, r=r: p[..., 0] ** r), series(lambda p, r=r0: p[..., 0] ** r))
                for r, r0 in zip(rs, exponents)]

    for r0, (traced, known) in zip(exponents, run_fast(run, jnp.asarray(exponents))):
        np.testing.assert_allclose(traced, known, rtol=1e-13, atol=0, err_msg=f"x ** {r0}")


def test_parameter_gradients_at_a_zero_base():
    """The ``where`` at a zero base keeps ``∞`` out of both branches: the gradient of a Laplacian in a parameter
    is finite and exact there (nested ``jax.jacfwd``'s own is NaN: its ``x^(r-1)`` at 0, times a zero)."""
    x = jnp.asarray([[0.0, 0.3], [0.5, 0.0], [0.0, 0.0]])
    loss = lambda w: jnp.sum(ad.laplacian(lambda p: (w * p[..., 0]) ** 2.0 + jnp.abs(w * p[..., 1]) ** 2.5)(x))
    value, grad = run_fast(jax.value_and_grad(loss), 1.5)
    # Δ = 2 w² + 3.75 w^2.5 |y|^0.5 at each point
    np.testing.assert_allclose(value, 6 * 1.5 ** 2 + 3.75 * 1.5 ** 2.5 * 0.3 ** 0.5, rtol=1e-14)
    np.testing.assert_allclose(grad, 12 * 1.5 + 9.375 * 1.5 ** 1.5 * 0.3 ** 0.5, rtol=1e-14)
