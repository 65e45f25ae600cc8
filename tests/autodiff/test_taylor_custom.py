"""``custom_jvp`` functions: the user's rule defines every derivative (JAX's semantics), against nested
``jax.jacfwd`` in float64, which differentiates the rule."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autodiff.ad_helpers import jacfwd_tensors, network, points, rel_err, run_fast, tensor_entry
from sciml import autodiff as ad
from sciml.autodiff import taylor


@jax.custom_jvp
def ste_round(x):
    """Straight-through estimator: rounds, with the derivative of the identity."""
    return jnp.round(x)


ste_round.defjvp(lambda primals, tangents: (ste_round(primals[0]), tangents[0]))


@jax.custom_jvp
def stable_softplus(x):
    """``log(1 + eˣ)`` written with its own rule ``σ(x) ẋ``."""
    return jnp.log1p(jnp.exp(-jnp.abs(x))) + jnp.maximum(x, 0.0)


@stable_softplus.defjvp
def _stable_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return stable_softplus(x), t * jax.nn.sigmoid(x)


def _ste(x):  # a rule that differs from the primal's derivative (zero almost everywhere)
    return ste_round(3.0 * x[..., 0]) * jnp.sin(x[..., -1]) + 0.5 * x[..., 0] ** 2


def _softplus_net(x):  # the stabilised rule inside a small network
    f, _ = network(x.shape[-1], out=0, hidden=(5,), activation=stable_softplus, seed=2)
    return f(x)


@pytest.mark.parametrize("name", ["straight_through", "stable_softplus"])
@pytest.mark.parametrize("dim", [1, 2])
def test_every_partial_to_order_4_follows_the_rule(name, dim):
    """All partials of orders 0-4 from one plan agree with nested ``jax.jacfwd`` (which differentiates the rule)."""
    f = {"straight_through": _ste, "stable_softplus": _softplus_net}[name]
    x = points(dim, n=4, seed=5)
    reqs = [a for k in range(5) for a in ad.multi_indices(dim, k)]

    def both(x):
        got = ad.derivatives(f, reqs, mode="taylor")(x)
        return got, jacfwd_tensors(f, 4)(x)

    got, tensors = run_fast(both, x)
    for k in range(5):
        refs = {a: tensor_entry(tensors[k], a) for a in ad.multi_indices(dim, k)}
        scale = max(float(jnp.max(jnp.abs(r))) for r in refs.values()) + 1e-300
        for a, r in refs.items():
            assert float(jnp.max(jnp.abs(got[a] - r))) <= 1e-12 * max(scale, 1.0), (a, scale)
    if name == "straight_through" and dim == 2:  # the rule matters: the primal's derivative would be x
        assert rel_err(got[(1, 0)], 3.0 * jnp.sin(x[:, 1]) + x[:, 0]) < 1e-14


@pytest.mark.parametrize("f", [_ste, _softplus_net], ids=["straight_through", "stable_softplus"])
def test_operators_agree_with_nested_mode(f):
    x = points(2, n=5, seed=6)
    ops = lambda mode: lambda x: (ad.laplacian(f, mode=mode)(x), ad.biharmonic(f, mode=mode)(x))
    (lap, bih), (lap_n, bih_n) = run_fast(lambda x: (ops("taylor")(x), ops("nested")(x)), x)
    assert rel_err(lap, lap_n) < 1e-12 and rel_err(bih, bih_n) < 1e-11


def _along(f, x, v, order=4):
    """The engine's and nested jvp's ``[f, Df[v], …, D^order f[v, …]]`` along ``x + t v``."""
    def nested(y):
        out, h = [f(y)], f
        for _ in range(order):
            h = (lambda inner: lambda z: jax.jvp(inner, (z,), (v,))[1])(h)
            out.append(h(y))
        return out

    zeros = [jnp.zeros_like(v)] * (order - 1)
    (y0, ys), ref = run_fast(lambda y: (taylor.jet(f, (y,), ([v] + zeros,)), nested(y)), x)
    return [y0] + ys, ref


def test_library_rules_that_differ_from_their_primal():
    """``jnp.sinc`` at 0 (its Maclaurin rule calls the next term's rule), ``relu`` at its kink, ``logaddexp``
    (whose rule calls itself): the rule's derivatives, as nested jvp gives them."""
    x = jnp.array([0.0, 0.4, -0.3, 1.1])
    v = jnp.array([1.0, 0.5, -1.0, 0.3])
    for f in (lambda y: jnp.sinc(y), lambda y: jax.nn.relu(y) * y + jax.nn.relu(y - 0.4),
              lambda y: jnp.logaddexp(y, 2.0 * y * y) + jax.nn.softplus(y)):
        got, ref = _along(f, x, v)
        for a, b in zip(got, ref):
            assert rel_err(a, b) < 1e-12
    got, _ = _along(jnp.sinc, x, v)
    assert abs(float(got[2][0]) + np.pi ** 2 / 3) < 1e-12  # sinc''(0) = -π²/3; the primal path gives 0


def test_zero_tangents_symbolic_zeros_and_several_outputs():
    """A rule with a constant operand (its tangent is zero), one defined with ``symbolic_zeros``, and one with
    two outputs, one of them without derivative."""
    @jax.custom_jvp
    def scaled_exp(x, c):
        return jnp.exp(c * x)

    @scaled_exp.defjvp
    def _(p, t):
        (x, c), (tx, tc) = p, t
        y = scaled_exp(x, c)
        return y, c * y * tx + x * y * tc

    @jax.custom_jvp
    def cubed(x, c):
        return c * x ** 3

    def _cubed_jvp(p, t):  # with symbolic_zeros=True the rule sees which tangents are zero
        (x, c), (tx, tc) = p, t
        assert isinstance(tc, jax.custom_derivatives.SymbolicZero)
        return cubed(x, c), 3.0 * c * x ** 2 * tx

    cubed.defjvp(_cubed_jvp, symbolic_zeros=True)

    @jax.custom_jvp
    def pair(x):
        return jnp.sin(x), jnp.floor(x)

    @pair.defjvp
    def _(p, t):
        (x,), (tx,) = p, t
        return pair(x), (jnp.cos(x) * tx, jnp.zeros_like(x))

    f = lambda y: scaled_exp(y, 0.7) + cubed(jnp.sin(y), 1.5) + pair(y)[0] * pair(y)[1]
    x, v = jnp.array([0.3, -0.8, 1.4]), jnp.array([1.0, -0.5, 0.7])
    got, ref = _along(f, x, v)
    for a, b in zip(got, ref):
        assert rel_err(a, b) < 1e-12


def test_rule_that_calls_itself_at_one_order_falls_back_to_nested_jvp(monkeypatch):
    """A linear (not elementwise) function whose rule applies the function to the tangent never drops an order: after
    ``MAX_SAME_ORDER`` nestings the equation goes to nested jvp, with the same result."""
    @jax.custom_jvp
    def lin(x):
        return 2.0 * jnp.flip(x)

    lin.defjvp(lambda p, t: (lin(p[0]), lin(t[0])))
    f = lambda y: jnp.tanh(lin(y)) * y
    x, v = jnp.array([0.3, -0.8]), jnp.array([1.0, 0.5])
    calls = []
    fallback = taylor.interpreter.fallback
    monkeypatch.setattr(taylor.interpreter, "fallback", lambda eqn, *a: calls.append(eqn) or fallback(eqn, *a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback names the primitive once
        got, ref = _along(f, x, v)
    for a, b in zip(got, ref):
        assert rel_err(a, b) < 1e-12
    assert [e.primitive.name for e in calls] == ["custom_jvp_call"]


def test_elementwise_rules_and_general_rules_agree(monkeypatch):
    """Eq. (2) of :mod:`taylor.custom` (Faà di Bruno from the rule's derivatives) and eq. (1) (the rule's jaxpr
    propagated with all channels) give the same Δ, Δ² and mixed partials."""
    x = points(2, n=5, seed=7)
    reqs = [ad.laplacian_op(2), ad.biharmonic_op(2), (2, 1), (1, 3)]
    fns = [_ste, _softplus_net, lambda y: jax.nn.softplus(y[..., 0] * y[..., 1]) + jax.nn.relu(y[..., 0]) ** 3]
    run = lambda x: [[ad.derivatives(f, reqs)(x)[r] for r in reqs] for f in fns]
    fast = run_fast(run, x)
    monkeypatch.setattr(taylor.custom, "is_elementwise", lambda *a: False)
    general = run_fast(run, x)
    for a, b in zip(fast, general):
        for r, u, w in zip(reqs, a, b):
            assert rel_err(u, w) < 1e-12, r


def test_elementwise_classification():
    def rule_of(f, x):
        eqn = next(e for e in jax.make_jaxpr(f)(x).jaxpr.eqns if e.primitive.name == "custom_jvp_call")
        n = len(eqn.invars) - eqn.params["num_consts"]
        jaxpr, *_ = taylor.custom.tangent_rule(eqn, [False] * n)
        return taylor.custom.is_elementwise(jaxpr, [j == 0 for j in range(n)] * 2)  # in the first input

    @jax.custom_jvp
    def normalise(v):
        return v / jnp.sum(v)

    normalise.defjvp(lambda p, t: (normalise(p[0]), t[0] / jnp.sum(p[0]) - p[0] * jnp.sum(t[0]) / jnp.sum(p[0]) ** 2))
    x = jnp.array([0.5, 1.5, 2.0])
    assert rule_of(jax.nn.relu, x) and rule_of(stable_softplus, x) and rule_of(ste_round, x)
    assert rule_of(lambda y: jnp.logaddexp(y, 0.0), x)  # in its first argument, the second a constant
    assert not rule_of(normalise, x)


def test_softplus_library_rule_at_the_tie():
    """``softplus = logaddexp(x, 0)`` goes through its library rule, exact at ``x = 0`` where the implementation's
    ``|x|`` has no higher derivatives: ``softplus^{(m)}(0) = σ^{(m-1)}(0) = 1/2, 1/4, 0, -1/8``."""
    eqn = next(e for e in jax.make_jaxpr(lambda y: jnp.logaddexp(y, 0.0))(1.0).jaxpr.eqns
               if e.primitive.name == "custom_jvp_call")
    assert taylor.custom.library_rule(eqn) is taylor.rules.elementwise.logaddexp_rule
    x = jnp.zeros((1, 1))
    got = run_fast(lambda y: ad.derivatives(lambda z: jax.nn.softplus(z[..., 0]), [(1,), (2,), (3,), (4,)])(y), x)
    for k, want in zip(range(1, 5), (0.5, 0.25, 0.0, -0.125)):
        assert abs(float(got[(k,)][0]) - want) < 1e-15
