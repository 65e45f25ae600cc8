"""Property tests: random compositions of supported primitives, Taylor engine against nested ``jax.jacfwd``."""
import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autodiff.ad_helpers import jacfwd_tensors, run_fast, tensor_entry
from sciml import autodiff as ad

UNARY = {
    "sin": jnp.sin, "cos": jnp.cos, "tanh": jnp.tanh, "gauss": lambda z: jnp.exp(-z * z),
    "logistic": jax.nn.sigmoid, "log1p_sq": lambda z: jnp.log1p(z * z), "sqrt1p": lambda z: jnp.sqrt(1.0 + z * z),
    "erf": jax.lax.erf, "softplus": jax.nn.softplus, "cube": lambda z: z ** 3, "atan": jnp.arctan,
    "gelu": jax.nn.gelu, "scale": lambda z: 0.7 * z - 0.2,
}
BINARY = {
    "add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply,
    "div": lambda a, b: a / (1.5 + b * b), "hypot": lambda a, b: jnp.sqrt(1.0 + a * a + b * b),
    "pow": lambda a, b: (1.0 + a * a) ** (0.5 + 0.25 * jnp.tanh(b)),
}


def trees(depth):
    leaf = st.sampled_from(["x0", "x1", "x2", "c"])
    if depth == 0:
        return leaf
    sub = trees(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(sorted(UNARY)), sub),
        st.tuples(st.sampled_from(sorted(BINARY)), sub, sub),
        st.tuples(st.just("dot"), sub, sub),
    )


W = jnp.array([[0.3, -0.5], [0.8, 0.1]])


def build(tree):
    def ev(t, x):
        if isinstance(t, str):
            if t == "c":
                return jnp.full(x.shape[:-1], 0.3)
            return x[..., int(t[1])]
        if t[0] == "dot":  # a small dot_general: [a, b] @ W summed
            v = jnp.stack([ev(t[1], x), ev(t[2], x)], axis=-1) @ W
            return jnp.tanh(v[..., 0]) + v[..., 1]
        if t[0] in UNARY:
            return UNARY[t[0]](ev(t[1], x))
        return BINARY[t[0]](ev(t[1], x), ev(t[2], x))

    return lambda x: ev(tree, x) + 0.1 * x[..., 0]  # always depends on the input


X = jnp.asarray(np.random.default_rng(0).uniform(-0.7, 0.7, (3, 3)))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(3), st.sampled_from([(2, 1, 0), (0, 1, 2), (1, 1, 1), (3, 0, 0), (0, 0, 4)]))
def test_random_compositions(tree, alpha):
    f = build(tree)
    reqs = [ad.laplacian_op(3), alpha, (1, 0, 0)]
    got, t = run_fast(lambda x: ([v for v in ad.derivatives(f, reqs, mode="taylor")(x).values()],
                                 jacfwd_tensors(f, max(2, sum(alpha)))(x)), X)
    lap = t[2][..., 0, 0] + t[2][..., 1, 1] + t[2][..., 2, 2]
    scale = max(float(jnp.max(jnp.abs(t[k]))) for k in range(len(t)))  # relative to the series' size
    for g, r in zip(got, [lap, tensor_entry(t[sum(alpha)], alpha), t[1][..., 0]]):
        assert float(jnp.max(jnp.abs(g - r))) <= 1e-10 * max(scale, 1.0)
