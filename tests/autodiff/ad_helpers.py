"""Shared helpers for the autodiff tests: small networks and nested-``jax.jacfwd`` references."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from sciml.autodiff.nested import jacfwd_tensor, tensor_entry  # noqa: F401 (the tests' references)
from sciml.nn import mlp

ACTIVATIONS = {
    "tanh": jnp.tanh,
    "sin": jnp.sin,
    "gelu": jax.nn.gelu,
    "gelu_exact": lambda z: jax.nn.gelu(z, approximate=False),
    "softplus": jax.nn.softplus,
    "silu": jax.nn.silu,
    "logistic": jax.nn.sigmoid,
    "gauss": lambda z: jnp.exp(-z * z),
    "erf": jax.lax.erf,
    "cos_log1p": lambda z: jnp.cos(z) * jnp.log1p(z * z),
    "rational": lambda z: z / jnp.sqrt(1.0 + z * z),
}


def equations(jaxpr):
    """Every equation of ``jaxpr``, those of its nested jaxprs included (each as often as it is called)."""
    for eqn in jaxpr.eqns:
        yield eqn
        for p in eqn.params.values():
            inner = p if hasattr(p, "eqns") else getattr(p, "jaxpr", None)
            if hasattr(inner, "eqns"):
                yield from equations(inner)


def network(dim: int, out: int = 2, hidden=(10, 10), activation="tanh", seed: int = 0):
    """A float64 MLP ``f: (..., dim) -> (..., out)`` (or ``(...)`` when ``out == 0``) and its parameters.

    Glorot-normal weights and small random biases, drawn with numpy (no XLA compilation in test setup).
    """
    rng = np.random.default_rng(seed)
    sizes = [dim, *hidden, max(out, 1)]
    params = [{"W": jnp.asarray(rng.normal(0, np.sqrt(2 / (a + b)), (a, b))),
               "b": jnp.asarray(0.1 * rng.normal(size=b))} for a, b in zip(sizes[:-1], sizes[1:])]
    act = ACTIVATIONS[activation] if isinstance(activation, str) else activation

    def f(x, params=params):
        y = mlp.apply(params, x, act)
        return y[..., 0] if out == 0 else y

    return f, params


def points(dim: int, n: int = 3, seed: int = 1):
    return jnp.asarray(np.random.default_rng(seed).uniform(-0.8, 0.8, (n, dim)))


def jacfwd_partial(f, alpha, jit: bool = True):
    """``x (N, d) -> ∂^alpha f`` by nested ``jax.jacfwd`` in scalar offsets ``t_i`` of ``x + Σ t_i e_i``."""
    alpha = tuple(int(a) for a in alpha)
    order = [i for i, a in enumerate(alpha) for _ in range(a)]

    def at_point(x0):
        def g(*t):
            return f(x0 + jnp.stack(t))

        h = g
        for i in order:
            h = jax.jacfwd(h, argnums=i)
        zero = [jnp.zeros((), x0.dtype)] * len(alpha)
        return h(*zero)

    return jax.jit(jax.vmap(at_point)) if jit else jax.vmap(at_point)


def rel_err(a, b) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


FAST = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}


def run_fast(fn, *args):
    """``jax.jit(fn)(*args)`` compiled without backend optimisation: the tests' graphs are tiny, their
    compilation is what costs."""
    return jax.jit(fn).lower(*args).compile(FAST)(*args)


def jacfwd_tensors(f, order: int):
    """``x (N, d) -> [f, Df, D²f, …, D^order f]`` from one chain of nested ``jax.jacfwd`` (lower orders as aux)."""
    def lift(g):
        def h(x):
            def split(y):
                v, lower = g(y)
                return v, (v, lower)

            jac, (v, lower) = jax.jacfwd(split, has_aux=True)(x)
            return jac, lower + [v]

        return h

    def at_point(x0):
        g = lambda y: (f(y), [])
        for _ in range(order):
            g = lift(g)
        top, lower = g(x0)
        return lower + [top]

    return jax.vmap(at_point)


def curve_derivatives(f, v, order: int):
    """``x (N, d) -> [h(0), h'(0), …, h^(order)(0)]`` for ``h(t) = f(x + t v)`` at each point (``f`` pointwise), by one
    nest of ``order`` forward-mode derivatives in the scalar ``t``: ``jax.jvp`` with the tangent ``1``, which is what
    ``jax.jacfwd`` computes for a scalar argument (without the ``vmap`` over its one basis vector, which makes the
    nest several times slower to trace)."""

    def at(x):
        g = lambda t: [f(x + t * v)]
        for _ in range(order):
            g = (lambda inner: lambda t: (lambda pt: pt[0] + [pt[1][-1]])(
                jax.jvp(inner, (t,), (jnp.ones_like(t),))))(g)
        return g(jnp.zeros((), x.dtype))

    return at
