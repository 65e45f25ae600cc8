"""The engine composes with jit, vmap, grad (parameter gradients for training) and sharding."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autodiff.ad_helpers import network, points, rel_err, run_fast
from sciml import autodiff as ad
from sciml.nn import mlp


def _plate_loss(mode, **opts):
    def loss(params, x):
        u = lambda y: mlp.apply(params, y, "tanh")[..., 0]
        r = ad.biharmonic(u, mode=mode, **opts)(x) - jnp.sin(x[:, 0]) * x[:, 1]
        return jnp.mean(r ** 2)

    return loss


def test_parameter_gradients_match_nested_mode():
    _, params = network(2, out=1, hidden=(6, 6), activation="tanh", seed=3)
    x = points(2, n=6)
    (l1, g1), (l2, g2) = run_fast(lambda p, x: (jax.value_and_grad(_plate_loss("taylor"))(p, x),
                                                jax.value_and_grad(_plate_loss("nested"))(p, x)), params, x)
    assert rel_err(l1, l2) < 1e-11
    for a, b in zip(jax.tree.leaves(g1), jax.tree.leaves(g2)):
        assert rel_err(a, b) < 1e-9


def test_tiled_evaluation_matches_and_differentiates():
    """Tiling the points (chunk) gives the same values and gradients as one pass, also with padding."""
    _, params = network(2, out=1, hidden=(6,), activation="softplus", seed=4)
    x = points(2, n=37, seed=9)
    tiled, whole = _plate_loss("taylor", chunk=8), _plate_loss("taylor", chunk=None)
    (l1, g1), (l2, g2) = run_fast(lambda p, x: (jax.value_and_grad(tiled)(p, x), jax.value_and_grad(whole)(p, x)),
                                  params, x)
    assert rel_err(l1, l2) < 1e-13
    for a, b in zip(jax.tree.leaves(g1), jax.tree.leaves(g2)):
        assert rel_err(a, b) < 1e-12


def test_vmap_over_points_and_over_parameters():
    f, params = network(3, out=2, hidden=(6,), activation="sin")
    x = points(3, n=5)
    lap_batch = ad.laplacian(f, mode="taylor")
    per_point = run_fast(jax.vmap(lambda y: ad.laplacian(f, mode="taylor")(y)), x)
    assert rel_err(per_point, run_fast(lap_batch, x)) < 1e-13
    # an ensemble: vmap over stacked parameter sets, the engine inside
    ens = jax.tree.map(lambda a: jnp.stack([a, 0.5 * a]), params)
    g = lambda p, y: ad.biharmonic(lambda z: mlp.apply(p, z, jnp.sin), mode="taylor")(y)
    out = run_fast(jax.vmap(g, in_axes=(0, None)), ens, x)
    second = jax.tree.map(lambda a: a[1], ens)
    assert out.shape == (2, 5, 2)
    assert rel_err(out[1], ad.biharmonic(lambda z: mlp.apply(second, z, jnp.sin), mode="nested")(x)) < 1e-10


def test_jit_of_derivatives_and_hessian_of_engine_output():
    f, _ = network(2, out=0, hidden=(6,), activation="tanh")
    x = points(2, n=4)
    reqs = [(1, 0), ad.laplacian_op(2)]
    run = jax.jit(lambda y: tuple(ad.derivatives(f, reqs, mode="taylor")(y).values()))
    ux, lap = run(x)
    # forward- and reverse-mode derivatives *of* the engine's output w.r.t. x: ∂_y Δf
    dlap = jax.vmap(jax.grad(lambda y: ad.laplacian(f, mode="taylor")(y)))(x)
    ref = ad.derivatives(f, [(2, 1), (0, 3)], mode="nested")(x)
    assert rel_err(dlap[:, 1], ref[(2, 1)] + ref[(0, 3)]) < 1e-10
    assert rel_err(lap, ad.laplacian(f, mode="nested")(x)) < 1e-11


SHARDED = """
import jax, jax.numpy as jnp, numpy as np
jax.config.update("jax_enable_x64", True)
from sciml import autodiff as ad
from sciml.nn import mlp
assert len(jax.devices()) == 2
mesh = jax.sharding.Mesh(np.array(jax.devices()), ("p",))
spec = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("p"))
params = mlp.init(jax.random.PRNGKey(0), [2, 8, 1], jnp.float64)
x = jax.device_put(jnp.asarray(np.random.default_rng(0).uniform(-1, 1, (64, 2))), spec)
u = lambda p: (lambda z: mlp.apply(p, jax.lax.with_sharding_constraint(z, spec) if z.ndim == 2 else z))
f = lambda p, y: ad.biharmonic(u(p), mode="taylor", chunk=8)(y)
compiled = jax.jit(f).lower(params, x).compile()
text = compiled.as_text()
assert "all-gather" not in text and "all-to-all" not in text  # the tiles stay sharded: no communication
out = compiled(params, x)
assert out.sharding.spec == jax.sharding.PartitionSpec("p"), out.sharding
nested = lambda p, y: ad.biharmonic(lambda z: mlp.apply(p, z), mode="nested")(y)
loss = lambda op: (lambda p, y: jnp.mean(op(p, y) ** 2))
ref, g, g2 = jax.jit(lambda p, y: (nested(p, y), jax.grad(loss(f))(p, y), jax.grad(loss(nested))(p, y)))(params, x)
assert float(jnp.max(jnp.abs(out - ref)) / jnp.max(jnp.abs(ref))) < 1e-10
assert max(float(jnp.max(jnp.abs(a - b)) / jnp.max(jnp.abs(b)))
           for a, b in zip(jax.tree.leaves(g), jax.tree.leaves(g2))) < 1e-9
print("ok")
"""


def test_sharded_batch_on_two_devices():
    """Points sharded over two (host) devices: tiled evaluation keeps the sharding, values and gradients match."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "XLA_FLAGS": f"{os.environ['XLA_FLAGS']} --xla_force_host_platform_device_count=2",
           "JAX_PLATFORMS": "cpu"}
    res = subprocess.run([sys.executable, "-c", SHARDED], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr[-3000:]


def test_float32_stays_float32():
    f, params = network(2, out=1, hidden=(6,), activation="tanh")
    p32 = jax.tree.map(lambda a: a.astype(jnp.float32), params)
    x = points(2, n=4).astype(jnp.float32)
    out = ad.derivatives(lambda y: mlp.apply(p32, y, "tanh"), [ad.biharmonic_op(2), (1, 1)], mode="taylor")(x)
    assert all(v.dtype == jnp.float32 for v in out.values())


def test_unknown_options_are_refused():
    f, _ = network(2)
    with pytest.raises(TypeError, match="unknown option"):
        ad.laplacian(f, mode="taylor", chunks=3)(points(2))
