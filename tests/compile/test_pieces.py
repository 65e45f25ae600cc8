"""A function called on many rows a piece at a time: the same answers as one call (to rounding: XLA may vectorise
another size otherwise), a few shapes compiled."""
import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile.pieces import bucket, in_pieces


def test_the_sizes_pieces_are_padded_to():
    assert [bucket(n, 16384) for n in (0, 256, 257, 4096, 4097, 20000)] == [256, 256, 1024, 4096, 16384, 16384]
    assert bucket(300, 64) == 64  # never past the piece
    assert [bucket(n, 16, least=1) for n in (1, 2, 5, 16)] == [1, 4, 16, 16]


def test_pieces_answer_as_one_call_and_compile_a_few_shapes():
    fn = jax.jit(lambda x: {"s": jnp.sin(x).sum(axis=-1), "x": x})
    x = np.random.default_rng(0).normal(size=(3000, 2, 3))
    whole = {k: np.asarray(v) for k, v in fn(x).items()}
    for n in (0, 1, 255, 256, 257, 1000, 1024, 1025, 3000):
        got = in_pieces(fn, x[:n], most=1024)
        for k, v in got.items():
            assert v.shape == whole[k][:n].shape
            np.testing.assert_allclose(v, whole[k][:n], rtol=1e-13, atol=0, err_msg=f"{n} rows: {k}")
    assert fn._cache_size() == 4  # the whole, no rows, 256 and 1024 rows
    got = in_pieces(fn, x[:300], most=1024, least=None)  # not padded: the rows as given
    np.testing.assert_allclose(got["s"], whole["s"][:300], rtol=1e-13, atol=0)
    assert fn._cache_size() == 5
