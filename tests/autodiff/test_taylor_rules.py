"""Each Taylor rule against nested ``jax.jvp`` along a random curve, and the interpreter's special paths."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from autodiff.ad_helpers import equations, rel_err, run_fast
from sciml import autodiff as ad
from sciml.autodiff import taylor
from sciml.autodiff.taylor import interpreter

K = 4
X = jnp.array([0.31, -0.72, 1.13, 0.05])
V = jnp.array([0.5, 1.0, -0.4, 0.8])
POS = jnp.abs(X) + 0.5  # positive arguments


def nested_jvp_series(f, x, v, order):
    """``[f(x), D f[v], D² f[v, v], …]`` by nested ``jax.jvp``."""
    out, h = [f(x)], f
    for _ in range(order):
        h = (lambda inner: lambda y: jax.jvp(inner, (y,), (v,))[1])(h)
        out.append(h(x))
    return out


# name -> (function, input), against nested jax.jvp; with MORE_CASES below they reach every rule of the table
# except those on the list UNREACHED (test_every_rule_is_reached)
CASES = {
    "add_sub_neg": (lambda x: -(x + 2.0) - x * x, X),
    "mul_div": (lambda x: jnp.sin(x) / (x * x + 2.0) * x, X),
    "div_const": (lambda x: x / 3.0, X),
    "square": (lambda x: jnp.square(jnp.sin(x)), X),
    "dot_general": (lambda x: jnp.tanh(jnp.outer(x, x) @ x), X),
    "exp": (jnp.exp, X),
    "exp2": (jnp.exp2, X),
    "expm1": (jnp.expm1, X),
    "log": (jnp.log, POS),
    "log1p": (lambda x: jnp.log1p(x * x), X),
    "tanh": (jnp.tanh, X),
    "logistic": (jax.nn.sigmoid, X),
    "sin": (jnp.sin, X),
    "cos": (jnp.cos, X),
    "tan": (jnp.tan, X * 0.5),
    "sinh": (jnp.sinh, X),
    "cosh": (jnp.cosh, X),
    "atan": (jnp.arctan, X),
    "atanh": (jnp.arctanh, X * 0.5),
    "asin": (jnp.arcsin, X * 0.5),
    "acos": (jnp.arccos, X * 0.5),
    "asinh": (jnp.arcsinh, X),
    "acosh": (jnp.arccosh, POS + 1.0),
    "erf": (lax.erf, X),
    "erfc": (lax.erfc, X),
    "sqrt": (jnp.sqrt, POS),
    "rsqrt": (lax.rsqrt, POS),
    "cbrt": (jnp.cbrt, POS),
    "pow_const": (lambda x: x ** 1.7, POS),
    "pow_var": (lambda x: x ** (x * 0.3 + 1.0), POS),
    "integer_pow": (lambda x: x ** 3 - x ** -2 + x ** 2, POS),
    "integer_pow_at_zero": (lambda x: x ** 4, jnp.zeros(4)),
    "max_min": (lambda x: jnp.maximum(jnp.sin(x), 0.2) + jnp.minimum(x, jnp.cos(x)), X),
    "abs_sign": (lambda x: jnp.abs(x) * x + jnp.sign(x), X),
    "select_n": (lambda x: jnp.where(x > 0, jnp.sin(x), x ** 2), X),
    "clamp": (lambda x: lax.clamp(-0.5, jnp.sin(3 * x), 0.5), X),
    "comparisons": (lambda x: (x < 0.2) * x + (x >= 0.2) * jnp.exp(x) + (x == x) * 1.0, X),
    "reduce_max_min": (lambda x: jnp.max(jnp.sin(x)) + jnp.min(jnp.cos(x)) * x, X),
    "rem": (lambda x: jnp.fmod(3 * x, 0.7), X),
    "shapes": (lambda x: jnp.transpose(jnp.reshape(x, (2, 2)))[None].squeeze(0).ravel() * jnp.flip(x), X),
    "broadcast_expand": (lambda x: jnp.sum(jnp.expand_dims(x, 1) * jnp.ones((4, 3)), axis=1), X),
    "slice_concat_pad": (lambda x: jnp.concatenate([x[1:3], jnp.pad(x[:2] ** 2, (1, 1))]), X),
    "dynamic_slice": (lambda x: lax.dynamic_slice(jnp.sin(x), (1,), (2,)), X),
    "dynamic_update_slice": (lambda x: lax.dynamic_update_slice(x, jnp.sin(x[:2]), (1,)), X),
    "gather_scatter": (lambda x: jnp.sin(x)[jnp.array([2, 0, 3])].at[1].add(x[0] ** 2), X),
    "reduce_sum_cumsum": (lambda x: jnp.cumsum(jnp.tanh(x)) * jnp.sum(x ** 2), X),
    "convert": (lambda x: jnp.sin(x.astype(jnp.float32)).astype(jnp.float64) + x.astype(jnp.int32), X),
    "fft": (lambda x: jnp.fft.rfft(jnp.sin(x)).real, X),
    "stop_gradient": (lambda x: lax.stop_gradient(x) * jnp.sin(x), X),
    "round_floor": (lambda x: jnp.floor(x) + jnp.round(x) * x, X),
    "stack_unstack_tile": (lambda x: jnp.sum(jnp.stack(jnp.unstack(jnp.tile(jnp.sin(x), 2)[None]) * 2, -1), 0), X),
}


GROUPS = 6  # cases are compiled together, a few per test, to keep compilation time down


@pytest.mark.parametrize("group", range(GROUPS))
def test_rule_against_nested_jvp(group):
    names = sorted(CASES)[group::GROUPS]

    def both(_):
        out = {}
        for name in names:
            f, x = CASES[name]
            y0, ys = taylor.jet(f, (x,), ([V] + [jnp.zeros_like(V)] * (K - 1),))
            out[name] = ([y0] + ys, nested_jvp_series(f, x, V, K))
        return out

    results = run_fast(both, 0)
    for name, (got, ref) in results.items():
        tol = 1e-6 if name == "convert" else 1e-11  # that case computes in float32
        for k, (a, b) in enumerate(zip(got, ref)):
            assert rel_err(a, b) < tol, (name, k, rel_err(a, b))


def test_jet_matches_jax_experimental_jet_on_general_curve():
    from jax.experimental import jet as jjet

    f = lambda x: jnp.tanh(jnp.sin(x) * jnp.exp(-x * x)) + jnp.log1p(x ** 2)
    series = ([V, 0.3 * V, -0.2 * V, V * V],)
    (y0, ys), (r0, rs) = jax.jit(lambda x: (taylor.jet(f, (x,), series), jjet.jet(f, (x,), series)))(X)
    assert rel_err(y0, r0) < 1e-14
    for a, b in zip(ys, rs):
        assert rel_err(a, b) < 1e-11


MESH = jax.make_mesh((1,), ("i",), axis_types=(AxisType.Auto,))


def in_shard_map(fn):
    """``fn`` inside a one-device ``shard_map``: the collectives' axis ``"i"`` is bound (the rules are reached
    when the Taylor propagation runs inside the mapped function)."""
    return jax.shard_map(fn, mesh=MESH, in_specs=P(), out_specs=P(), check_vma=False)


def jacfwd_series(f, x, v, order):
    """``[f(x), D f[v], …, D^order f[v, …, v]]`` by nested ``jax.jacfwd`` of ``t -> f(x + t v)`` at ``t = 0``."""
    h, out, t0 = (lambda t: f(x + t * v)), [], jnp.zeros((), x.dtype)
    for _ in range(order + 1):
        out.append(h(t0))
        h = jax.jacfwd(h)
    return out


SAME = jnp.array([1.0, -2.0, 0.5])
# name -> (function, input[, wrapper of the whole evaluation]): the rules CASES does not reach, against nested
# jax.jacfwd in float64
MORE_CASES = {
    "add_any": (lambda x: jax.grad(lambda y: jnp.sum(jnp.sin(y) * y * y))(x), X),  # transposition sums
    "ceil": (lambda x: jnp.ceil(x) * jnp.sin(x), X),
    "complex": (lambda x: jnp.real(lax.complex(jnp.sin(x), x * x) * jnp.conj(lax.complex(x, jnp.cos(x))))
                + jnp.imag(lax.complex(x, x ** 3)), X),
    "conv": (lambda x: jnp.convolve(jnp.sin(x), x, mode="same") + jnp.convolve(x ** 2, SAME, mode="same"), X),
    "copy_reduce_precision": (lambda x: jnp.copy(jnp.sin(x)) * lax.reduce_precision(x * x, 11, 52), X),
    "scatter": (lambda x: x.at[jnp.array([1, 2])].set(jnp.sin(x[:2])) * x, X),
    "split": (lambda x: jnp.concatenate(jnp.split(jnp.sin(x), 2)[::-1]) * x, X),
    "optimization_barrier": (lambda x: sum(lax.optimization_barrier((jnp.sin(x), x * x))), X),
    "placement": (lambda x: jax.device_put(jnp.sin(x)) * lax.with_sharding_constraint(x ** 2, NamedSharding(MESH, P()))
                  + jax.sharding.reshard(jnp.cos(x), NamedSharding(MESH, P())), X),
    "collectives": (lambda x: lax.psum(jnp.sin(x), "i") * lax.all_gather(x ** 2, "i", tiled=True), X, in_shard_map),
}
# JAX defines no derivative of nextafter (a step function at the float spacing): its rule propagates none.
NO_DERIVATIVE_CASES = {"nextafter": (lambda x: jnp.nextafter(jnp.sin(x), 2.0), X)}

# Table entries no case can reach, and why. The test fails when one of them becomes reachable (remove it here)
# as well as when any other entry is not reached (add a case).
UNREACHED = {
    name: "no primitive of the installed JAX has this name (a spelling of other JAX versions)"
    for name in ("copy_p", "expand_dims", "mesh_cast", "reduce_and_scatter", "scatter_add")
}
MORE_GROUPS = 2


def _curve_jet(f):
    """``x -> (f(x), [d^k/dt^k f(x + t V) at t = 0 for k = 1..K])`` by the Taylor engine."""
    return lambda x: taylor.jet(f, (x,), ([V] + [jnp.zeros_like(V)] * (K - 1),))


@pytest.mark.parametrize("group", range(MORE_GROUPS))
def test_more_rules_against_nested_jacfwd(group):
    names = sorted(MORE_CASES)[group::MORE_GROUPS]

    def both(_):
        out = {}
        for name in names:
            f, x, *wrap = MORE_CASES[name]
            evaluate = lambda x, f=f: (_curve_jet(f)(x), jacfwd_series(f, x, V, K))
            (y0, ys), ref = (wrap[0](evaluate) if wrap else evaluate)(x)
            out[name] = ([y0] + ys, ref)
        return out

    for name, (got, ref) in run_fast(both, 0).items():
        for k, (a, b) in enumerate(zip(got, ref)):
            assert rel_err(a, b) < 1e-11, (name, k, rel_err(a, b))


def test_rule_of_a_primitive_without_jax_derivative():
    f, x = NO_DERIVATIVE_CASES["nextafter"]
    y0, ys = jax.jit(_curve_jet(f))(x)
    np.testing.assert_array_equal(y0, f(x))
    for y in ys:
        np.testing.assert_array_equal(y, jnp.zeros_like(x))


def test_every_rule_is_reached(monkeypatch):
    """Tracing the cases calls every rule of the table except those on UNREACHED."""
    reached = set()

    def spy(name, rule):
        def traced(*args):
            out = rule(*args)
            reached.add(name)
            return out

        return traced

    for name, rule in list(taylor.RULES.items()):
        monkeypatch.setitem(taylor.RULES, name, spy(name, rule))
    for f, x, *wrap in [*CASES.values(), *MORE_CASES.values(), *NO_DERIVATIVE_CASES.values()]:
        jax.make_jaxpr((wrap[0] if wrap else lambda fn: fn)(_curve_jet(f)))(x)
    assert set(taylor.RULES) - reached == set(UNREACHED)


@pytest.mark.parametrize("act", ["relu", "softplus", "gelu", "silu", "elu", "custom_vjp", "checkpoint"])
def test_custom_derivative_and_call_primitives(act):
    @jax.custom_vjp
    def sin_vjp(z):
        return jnp.sin(z)

    sin_vjp.defvjp(lambda z: (jnp.sin(z), z), lambda z, g: (g * jnp.cos(z),))
    fns = {"relu": jax.nn.relu, "softplus": jax.nn.softplus, "gelu": jax.nn.gelu, "silu": jax.nn.silu,
           "elu": jax.nn.elu, "custom_vjp": sin_vjp, "checkpoint": jax.checkpoint(lambda z: jnp.sin(z) ** 2)}
    g = fns[act]
    f = jax.jit(lambda x: g(jnp.sin(x) + 0.3 * x))
    primal = {"custom_vjp": jnp.sin}.get(act, g)  # jvp refuses custom_vjp: the reference uses its primal
    (y0, ys), ref = run_fast(lambda x: (taylor.jet(f, (x,), ([V] + [jnp.zeros_like(V)] * 3,)),
                                        nested_jvp_series(lambda y: primal(jnp.sin(y) + 0.3 * y), x, V, 4)), X)
    for a, b in zip([y0] + ys, ref):
        assert rel_err(a, b) < 1e-11


def test_constants_cost_nothing():
    """A sub-expression that does not depend on the input is evaluated once, with no Taylor coefficients."""
    P, Q = jnp.ones((3, 3)), jnp.arange(9.0).reshape(3, 3)

    def f(x):
        c = jnp.sum(jnp.tanh(P @ Q))  # constant
        return x[..., 0] * x[..., 1] + c

    jaxpr = jax.make_jaxpr(lambda x: ad.laplacian(f, mode="taylor")(x))(jnp.ones((5, 2)))
    # the propagation is a jitted call of its own (engine._propagation): its equations are nested
    names = [e.primitive.name for e in equations(jaxpr.jaxpr)]
    assert names.count("dot_general") == 1 and names.count("tanh") == 1


def _made_up_primitive():
    from jax.extend.core import Primitive
    from jax.interpreters import ad as jad, mlir

    prim = Primitive("sciml_test_sin3")  # sin(3x), with no Taylor rule
    impl = lambda x: jnp.sin(3.0 * x)
    prim.def_impl(impl)
    prim.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(prim, mlir.lower_fun(impl, multiple_results=False))
    jad.defjvp(prim, lambda g, x: g * 3.0 * jnp.cos(3.0 * x) if False else g * 3.0 * prim_cos(x))

    cos_p = Primitive("sciml_test_cos3")
    cos_impl = lambda x: jnp.cos(3.0 * x)
    cos_p.def_impl(cos_impl)
    cos_p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(cos_p, mlir.lower_fun(cos_impl, multiple_results=False))
    jad.defjvp(cos_p, lambda g, x: -g * 3.0 * prim.bind(x))

    def prim_cos(x):
        return cos_p.bind(x)

    return prim


def test_fallback_warns_once_and_is_correct(monkeypatch):
    monkeypatch.setattr(interpreter, "_WARNED", set())
    prim = _made_up_primitive()
    f = lambda x: prim.bind(x[..., 0] * x[..., 1]) + x[..., 0] ** 2
    x = jnp.array([[0.3, -0.4], [0.7, 0.2]])
    reqs = [ad.laplacian_op(2), (2, 1), (1, 0)]
    run = jax.jit(lambda x: list(ad.derivatives(f, reqs, mode="taylor")(x).values()))
    with pytest.warns(UserWarning, match="sciml_test_sin3") as rec:
        got = dict(zip(reqs, run(x)))
        ad.derivatives(f, reqs, mode="taylor")(x[:1])
    assert sum("sciml_test_sin3" in str(w.message) for w in rec) == 1
    # exact: u = sin(3xy) + x²
    a, b = x[:, 0], x[:, 1]
    s, c = jnp.sin(3 * a * b), jnp.cos(3 * a * b)
    np.testing.assert_allclose(got[(1, 0)], 3 * b * c + 2 * a, rtol=1e-12)
    lap = -9 * (a ** 2 + b ** 2) * s + 2
    np.testing.assert_allclose(got[ad.laplacian_op(2)], lap, rtol=1e-11)
    ref = dict(zip(reqs, jax.jit(lambda x: list(ad.derivatives(f, reqs, mode="nested")(x).values()))(x)))
    for r in reqs:
        assert rel_err(got[r], ref[r]) < 1e-10


def test_fallback_for_a_jax_primitive_without_rule(monkeypatch):
    monkeypatch.setattr(interpreter, "_WARNED", set())
    f = lambda x: lax.lgamma(x[..., 0] ** 2 + 1.0) * x[..., 1]
    x = jnp.array([[0.3, -0.4], [0.7, 0.2]])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = jax.jit(ad.biharmonic(f, mode="taylor"))(x)
    assert any("lgamma" in str(w.message) for w in rec)
    ref = jax.jit(ad.biharmonic(f, mode="nested"))(x)
    assert rel_err(got, ref) < 1e-10


def test_register_rule_replaces_the_fallback(monkeypatch):
    monkeypatch.setattr(interpreter, "_WARNED", set())
    monkeypatch.setitem(taylor.RULES, "lgamma", taylor.RULES["lgamma"] if "lgamma" in taylor.RULES else None)
    from sciml.autodiff.taylor.rules import _fdb_rule

    def d_lgamma(ctx, x0, y0, K):  # digamma and polygamma
        return [None] + [lax.polygamma(jnp.asarray(m - 1.0, x0.dtype), x0) / np.prod(np.arange(1, m + 1))
                         for m in range(1, K + 1)]

    taylor.register_rule("lgamma", _fdb_rule(d_lgamma))
    f = lambda x: lax.lgamma(x[..., 0] ** 2 + 1.0)
    x = jnp.array([[0.3, -0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ad.laplacian(f, mode="taylor")(x)
    assert rel_err(got, ad.laplacian(f, mode="nested")(x)) < 1e-10
