"""The marching loops' compile options: XLA's defaults whatever the process's flags, and no option that an XLA
build without it would refuse."""
import jax
import jax.numpy as jnp

from sciml.compile import MARCHING, marching_options


def test_the_emitters_option_only_where_the_flags_turn_them_off():
    assert marching_options("") == {"xla_backend_optimization_level": 3}
    assert marching_options("--xla_backend_optimization_level=0") == {"xla_backend_optimization_level": 3}
    assert marching_options("--xla_cpu_use_fusion_emitters=false") == {
        "xla_backend_optimization_level": 3, "xla_cpu_use_fusion_emitters": True}


def test_a_loop_compiles_with_them():
    loop = jax.jit(lambda x: jax.lax.fori_loop(0, 10, lambda _, y: jnp.sin(y), x), compiler_options=MARCHING)
    plain = jax.lax.fori_loop(0, 10, lambda _, y: jnp.sin(y), jnp.float64(0.5))
    assert abs(float(loop(jnp.float64(0.5))) - float(plain)) < 1e-14
