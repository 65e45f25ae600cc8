"""Per-point operators under ``jax.vmap`` are the batched, tiled call: same numbers (bitwise), same program."""
import jax
import jax.numpy as jnp

from autodiff.ad_helpers import network, points, rel_err, run_fast
from sciml import autodiff as ad
from sciml.autodiff.taylor import vmapped
from sciml.nn import mlp

CHUNK = 8  # tiles of 8 points: 37 points make 5 tiles


def _nets():
    f, params = network(2, out=0, hidden=(6, 6), activation="tanh", seed=2)
    point = lambda p: (lambda y: mlp.apply(p, y, jnp.tanh)[0])
    return f, params, point


def test_vmapped_per_point_operators_are_the_tiled_batched_call():
    f, params, point = _nets()
    x = points(2, n=37, seed=4)
    for op in (ad.laplacian, ad.biharmonic):
        per_point = jax.vmap(op(point(params), chunk=CHUNK))
        batched = op(f, chunk=CHUNK)
        a, b = run_fast(lambda x: (per_point(x), batched(x)), x)
        assert bool(jnp.all(a == b)), op.__name__
        assert "scan" in str(jax.make_jaxpr(per_point)(x))  # the tiles' lax.map


def test_training_step_under_vmap_is_the_batched_one():
    _, params, point = _nets()
    x = points(2, n=37, seed=5)

    def loss(p, x, per_point):
        u = point(p)
        r = jax.vmap(ad.biharmonic(u, chunk=CHUNK))(x) if per_point else \
            ad.biharmonic(jax.vmap(u), chunk=CHUNK)(x)
        return jnp.mean((r - x[:, 0]) ** 2)

    (l1, g1), (l2, g2) = run_fast(lambda p, x: (jax.value_and_grad(loss)(p, x, True),
                                                jax.value_and_grad(loss)(p, x, False)), params, x)
    assert l1 == l2
    assert all(bool(jnp.all(a == b)) for a, b in zip(jax.tree.leaves(g1), jax.tree.leaves(g2)))


def test_other_compositions_keep_the_plain_path():
    """Per-point parameter gradients (``vmap`` of ``grad``: no reverse mode through ``custom_vmap``), gradients in
    ``x``, and parameters batched with the points (a function per point) give the nested mode's values."""
    _, params, point = _nets()
    x = points(2, n=5, seed=6)
    lap = lambda p, y, mode: ad.laplacian(point(p), mode=mode)(y)
    per_grad = lambda mode: jax.vmap(lambda y: jax.grad(lap)(params, y, mode))
    grad_x = lambda mode: jax.vmap(jax.grad(lambda y: lap(params, y, mode)))
    ens = jax.tree.map(lambda a: jnp.stack([a * (1 + 0.1 * i) for i in range(5)]), params)
    joint = lambda mode: jax.vmap(lambda p, y: lap(p, y, mode))
    got, ref = run_fast(lambda x: [(per_grad(m)(x), grad_x(m)(x), joint(m)(ens, x)) for m in ("taylor", "nested")], x)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(ref)):
        assert rel_err(a, b) < 1e-12


def test_batched_here_only_for_the_innermost_vmap():
    seen = []
    probe = lambda y: seen.append(vmapped.batched_here(y)) or y
    x = jnp.ones((3, 2))
    probe(x)
    jax.vmap(probe)(x)
    jax.vmap(lambda y: jax.jvp(probe, (y,), (y,))[1])(x)  # a JVP inside the vmap
    jax.vmap(lambda y: jax.vmap(probe)(jnp.stack([y, y])))(x)
    assert seen == [False, True, False, True]
