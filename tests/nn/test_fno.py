"""The FNO: the spectral layer against explicit DFT sums, resolution invariance, and the losses (float64)."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from sciml.nn import fno, losses

# jitted once per shape: faster than op-by-op dispatch, which compiles every primitive on its own
spectral_conv = jax.jit(fno.spectral_conv, static_argnames="method")
apply = jax.jit(fno.apply, static_argnames=("grid", "padding", "activation", "spectral", "pad_fill"))


def direct_spectral(w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The truncated Fourier operator by explicit sums over grid points and kept modes (no FFT).

    Kept modes: k_j in {0..m_j-1} ∪ {-m_j..-1} on the leading axes, k_d in {0..m_d-1} on the last. The
    output is the real part of the inverse transform of the real signal's spectrum: on the last axis each
    mode k_d > 0 (below Nyquist) stands for itself and its conjugate, hence the factor 2.
    """
    d = w.ndim - 3
    shape = v.shape[1:1 + d]
    modes = [s // 2 for s in w.shape[:d - 1]] + [w.shape[d - 1]]
    R = w[..., 0] + 1j * w[..., 1]
    freq_lists = [list(range(m)) + list(range(-m, 0)) for m in modes[:-1]] + [list(range(modes[-1]))]
    coords = np.stack(np.meshgrid(*[np.arange(n) for n in shape], indexing="ij"), -1).reshape(-1, d)
    vflat = v.reshape(v.shape[0], -1, v.shape[-1])
    out = np.zeros(v.shape[:1] + (coords.shape[0], R.shape[-1]))
    for block_index in itertools.product(*[range(len(f)) for f in freq_lists]):
        k = np.array([f[i] for f, i in zip(freq_lists, block_index)])
        phase = 2 * np.pi * (coords * k / np.array(shape)).sum(-1)  # (N,)
        V = np.einsum("bxi,x->bi", vflat, np.exp(-1j * phase))
        Y = V @ R[block_index]
        kd, nd = k[-1], shape[-1]
        c = 1.0 if kd == 0 or 2 * kd == nd else 2.0
        out += c * np.real(Y[:, None, :] * np.exp(1j * phase)[None, :, None])
    return (out / np.prod(shape)).reshape(v.shape[:-1] + (R.shape[-1],))


@pytest.mark.parametrize("method", ["fft", "dft"])
@pytest.mark.parametrize("shape,modes", [((16,), (5,)), ((12,), (7,)), ((12, 10), (4, 3)), ((8, 9), (4, 5)),
                                         ((6, 8, 7), (2, 3, 4)), ((4, 6, 5), (2, 3, 2))])
def test_spectral_conv_matches_direct_sums(shape, modes, method):
    """Both ways to transform (XLA's FFT; truncated DFTs as matrix products), with the Nyquist mode kept on the
    last axis ((12,) with 7 modes, (8, 9)) and on a leading one (2 m = n: (4, 6, 5))."""
    rng = np.random.default_rng(len(shape))
    w = np.asarray(fno.spectral_init(jax.random.PRNGKey(0), modes, 3, 2, jnp.float64))
    w = w + rng.standard_normal(w.shape)  # not only positive numbers
    v = rng.standard_normal((2, *shape, 3))
    got = np.asarray(spectral_conv(w, v, method))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, direct_spectral(np.asarray(w), np.asarray(v)), rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("batch", [1, 3, 5])  # 2, 6 and 10 rows per mode: outer products up to 8, a GEMM beyond
def test_dft_gradients_match_the_fft_path(batch):
    """The DFT layer's own backward rule for the mode mixing (the weight gradient as a sum of outer products over
    a mode's few rows, :func:`fno._mix`) gives the gradients that JAX derives for the FFT path, to rounding."""
    rng = np.random.default_rng(batch)
    w = np.asarray(fno.spectral_init(jax.random.PRNGKey(0), (3, 2), 3, 4, jnp.float64)) + rng.standard_normal((6, 2, 3, 4, 2))
    v = rng.standard_normal((batch, 8, 7, 3))
    g = rng.standard_normal((batch, 8, 7, 4))
    grads = {m: jax.jit(jax.grad(lambda w, v, m=m: jnp.sum(fno.spectral_conv(w, v, m) * g), (0, 1)))(w, v)
             for m in ("dft", "fft")}
    for dft, fft in zip(grads["dft"], grads["fft"]):
        np.testing.assert_allclose(np.asarray(dft), np.asarray(fft), rtol=1e-10, atol=1e-12)


def test_transposed_layout_is_the_layers_layout():
    """``spectral_conv_t`` takes and returns ``(n_d..n_1, batch, c)``; the DFT and FFT networks agree."""
    rng = np.random.default_rng(1)
    w = np.asarray(fno.spectral_init(jax.random.PRNGKey(0), (3, 2), 3, 2, jnp.float64)) + 0.5
    v = rng.standard_normal((2, 7, 6, 3))
    perm = fno.transposed(2)
    assert perm == (2, 1, 0, 3)
    got = np.asarray(jax.jit(fno.spectral_conv_t)(w, v.transpose(perm)))
    np.testing.assert_allclose(got.transpose(np.argsort(perm)), direct_spectral(w, v), rtol=1e-11, atol=1e-12)
    params = fno.init(jax.random.PRNGKey(1), 1, 1, (3, 2), 4, 2, projection=(8,), dtype=jnp.float64)
    x = rng.standard_normal((2, 9, 7, 1))
    a, b = (np.asarray(apply(params, x, padding=(2, 1), spectral=m)) for m in ("dft", "fft"))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_a_zero_padded_field_and_a_cropped_result_cost_only_their_points():
    """``period``: ``v`` holds the first points of a field that is zero beyond them; ``out``: only the first points of
    the result are made. The numbers are those of the whole transform of the zero-padded field, then cropped; a
    one-layer network (the first layer is the last) agrees with the FFT path."""
    rng = np.random.default_rng(2)
    w = np.asarray(fno.spectral_init(jax.random.PRNGKey(0), (3, 2), 3, 2, jnp.float64)) + 0.5
    v = rng.standard_normal((5, 6, 2, 3))  # (n_2, n_1, batch, c) of a field on (9, 7) zero beyond (6, 5)
    full = np.asarray(fno.spectral_conv_t(w, np.pad(v, [(0, 2), (0, 3), (0, 0), (0, 0)])))
    got = np.asarray(fno.spectral_conv_t(w, v, period=(9, 7), out=(4, 6)))
    assert got.shape == (6, 4, 2, 2)
    np.testing.assert_allclose(got, full[:6, :4], rtol=1e-12, atol=1e-13)
    params = fno.init(jax.random.PRNGKey(1), 1, 1, (3, 2), 4, 1, projection=(8,), dtype=jnp.float64)
    x = rng.standard_normal((2, 9, 7, 1))
    a, b = (np.asarray(apply(params, x, padding=(2, 1), spectral=m)) for m in ("dft", "fft"))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def test_auto_picks_the_dft_and_refuses_unknown_methods():
    assert fno.spectral_method("auto", (8, 8)) == "dft"
    assert fno.spectral_method("fft", (8, 8)) == "fft"
    with pytest.raises(ValueError, match="expected one of auto, dft, fft"):
        fno.spectral_method("fast", (8, 8))


def test_one_export_of_the_layer_serves_every_grid():
    """``jax.export`` with symbolic grid sizes: the exported layer equals the FFT layer on grids it never saw."""
    w = fno.spectral_init(jax.random.PRNGKey(0), (3, 4), 2, 2, jnp.float32)
    spec = jax.export.symbolic_shape("b, n1, n2, 2", constraints=("n1 >= 6", "n2 >= 8"))
    exported = jax.export.export(jax.jit(lambda v: fno.spectral_conv(w, v)))(jax.ShapeDtypeStruct(spec, jnp.float32))
    rng = np.random.default_rng(0)
    for grid in ((6, 8), (17, 9), (32, 64)):
        v = rng.standard_normal((3, *grid, 2)).astype(np.float32)
        want = np.asarray(spectral_conv(w, v, "fft"))
        np.testing.assert_allclose(exported.call(v), want, rtol=0, atol=2e-6 * np.abs(want).max(), err_msg=str(grid))


def bandlimited(n: int, dims: int, channels: int, kmax: int, seed=0) -> np.ndarray:
    """A trigonometric polynomial with |k_j| < kmax sampled on the periodic grid j / n."""
    rng = np.random.default_rng(seed)
    x = np.stack(np.meshgrid(*[np.arange(n) / n] * dims, indexing="ij"), -1)
    out = np.zeros((1,) + (n,) * dims + (channels,))
    for k in itertools.product(range(-kmax + 1, kmax), repeat=dims):
        a, b = rng.standard_normal((2, channels))
        phase = 2 * np.pi * (x * np.array(k)).sum(-1)[..., None]
        out[0] += a * np.cos(phase) + b * np.sin(phase)
    return out


@pytest.mark.parametrize("dims,modes", [(1, (6,)), (2, (4, 4))])
def test_spectral_conv_is_resolution_invariant(dims, modes):
    """A band-limited input on two grids gives the same function: the layer does not depend on n."""
    w = fno.spectral_init(jax.random.PRNGKey(0), modes, 2, 2, jnp.float64)
    coarse, fine = bandlimited(16, dims, 2, 4), bandlimited(32, dims, 2, 4)
    np.testing.assert_allclose(fine[(0,) + (slice(None, None, 2),) * dims], coarse[0], atol=1e-12)
    yc = np.asarray(spectral_conv(w, coarse))
    yf = np.asarray(spectral_conv(w, fine))
    np.testing.assert_allclose(yf[(slice(None),) + (slice(None, None, 2),) * dims], yc, rtol=1e-10, atol=1e-12)


def test_same_params_apply_at_two_resolutions():
    params = fno.init(jax.random.PRNGKey(1), 1, 1, (6, 6), 12, 3, projection=(16,), dtype=jnp.float64)
    smooth = lambda n: bandlimited(n, 2, 1, 3, seed=2)
    y32 = np.asarray(apply(params, smooth(32), grid="periodic"))
    y64 = np.asarray(apply(params, smooth(64), grid="periodic"))
    assert y32.shape == (1, 32, 32, 1) and y64.shape == (1, 64, 64, 1)
    # the nonlinearities make some high frequencies that alias on the coarse grid: close, not equal
    rel = np.linalg.norm(y64[:, ::2, ::2] - y32) / np.linalg.norm(y32)
    assert rel < 0.02, rel


def test_padding_grid_channels_and_gradients():
    params = fno.init(jax.random.PRNGKey(2), 2, 3, (4,), 8, 2, lifting=(6,), grid=True, dtype=jnp.float64)
    x = jnp.asarray(np.random.default_rng(0).standard_normal((4, 20, 2)))
    y = apply(params, x, grid="closed", padding=5)
    assert y.shape == (4, 20, 3)
    assert all(jnp.isrealobj(a) for a in jax.tree_util.tree_leaves(params))
    grads = jax.jit(jax.grad(lambda p: losses.rel_l2(fno.apply(p, x, padding=5), jnp.ones((4, 20, 3)))))(params)
    assert all(np.isfinite(np.asarray(g)).all() for g in jax.tree_util.tree_leaves(grads))
    tx = optax.adamw(1e-3)  # complex weights as real pairs: optax's real-valued updates apply
    jax.jit(lambda g, p: tx.update(g, tx.init(p), p))(grads, params)
    with pytest.raises(ValueError, match="reads 3 channels, got 2"):
        fno.apply(params, x, grid=None)


def test_smooth_padding_blends_each_axis_back_to_its_start():
    v = jnp.asarray(np.random.default_rng(3).standard_normal((2, 5, 4, 3)))  # (batch, n_1, n_2, c)
    padded = np.asarray(fno.PAD_FILLS["smooth"](v, [None, 3, 2, None]))
    assert padded.shape == (2, 8, 6, 3)
    np.testing.assert_array_equal(padded[:, :5, :4], v)
    s = (1 - np.cos(np.pi * np.arange(1, 4) / 4)) / 2  # axis 1: from v[:, -1] (s = 0) towards v[:, 0] (s = 1)
    expect = v[:, -1:] + (v[:, :1] - v[:, -1:]) * s[None, :, None, None]
    np.testing.assert_allclose(padded[:, 5:, :4], expect, rtol=1e-12)
    # round the period each step is small: no jump from the padding's end back to the start
    jumps = np.abs(np.diff(np.concatenate([padded, padded[:, :1]], 1), axis=1))[:, 4:]
    assert jumps.max() < np.abs(v[:, -1] - v[:, 0]).max()
    # the layouts agree: the transposed DFT path pads the same field as the FFT path
    params = fno.init(jax.random.PRNGKey(4), 2, 1, (2, 2), 6, 2, projection=(8,), dtype=jnp.float64)
    a, b = (np.asarray(apply(params, v[..., :2], padding=(3, 2), spectral=m, pad_fill="smooth"))
            for m in ("dft", "fft"))
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="pad_fill 'mirror': expected one of zeros, smooth"):
        fno.apply(params, v[..., :2], padding=2, pad_fill="mirror")


def test_one_export_with_the_smooth_fill_serves_every_grid():
    """The smooth fill with a padding that depends on the symbolic grid size (the period kept, as a case's model
    pads) exports once and equals the jitted network on grids it never saw."""
    from sciml.solvers.fno.model import scaled_padding

    params = fno.init(jax.random.PRNGKey(0), 1, 1, (3, 3), 6, 2, projection=(8,))

    def net(x):
        pads = tuple(scaled_padding(4, 17, n, "closed") for n in x.shape[1:3])
        return fno.apply(params, x, padding=pads, pad_fill="smooth", spectral="dft")

    spec = jax.export.symbolic_shape("b, n1, n2, 1", constraints=("n1 >= 8", "n2 >= 8"))
    exported = jax.export.export(jax.jit(net))(jax.ShapeDtypeStruct(spec, jnp.float32))
    for grid in ((17, 17), (17, 33), (65, 9)):
        v = np.random.default_rng(0).standard_normal((2, *grid, 1)).astype(np.float32)
        want = np.asarray(jax.jit(net)(v))
        np.testing.assert_allclose(exported.call(v), want, rtol=0, atol=1e-5 * np.abs(want).max(), err_msg=str(grid))


@pytest.mark.parametrize("fill,order", [("zeros", 1), ("smooth", 2)])
def test_padding_fill_sets_how_fast_the_kept_modes_settle_with_the_grid(fill, order):
    """A smooth field that is not periodic, padded to the same period on closed grids of 33, 65 and 129 points:
    its kept Fourier coefficients approach the fine grid's at first order with zeros (a jump at each end of the
    domain) and at second with the smooth fill (continuous round the period): why the smooth fill changes less
    from the training grid to a finer one (zero-shot super-resolution)."""
    from sciml.solvers.fno.model import scaled_padding

    def kept(n):
        v = jnp.asarray(np.exp(np.linspace(0, 1, n)) * np.sin(3 * np.linspace(0, 1, n)))[:, None]
        padded = np.asarray(fno.PAD_FILLS[fill](v, [scaled_padding(8, 33, n, "closed"), None]))[:, 0]
        return np.fft.rfft(padded)[:8] / len(padded)

    ref = kept(1025)
    errors = [np.abs(kept(n) - ref).max() / np.abs(ref).max() for n in (33, 65, 129)]
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    np.testing.assert_allclose(rates, order, atol=0.25)


def test_modes_beyond_the_grid_are_refused():
    w = fno.spectral_init(jax.random.PRNGKey(0), (5, 5), 1, 1)
    with pytest.raises(ValueError, match="5 modes on axis 0 need a grid of at least 10 points, got 8"):
        fno.spectral_conv(w, np.ones((1, 8, 16, 1)))
    fno.check_modes((5, 5), (10, 8))  # the last axis holds n // 2 + 1 modes


def test_parameter_count_matches_the_paper():
    """FNO-2D for Darcy (12 modes, width 32, 4 layers): 2,368,001 parameters in the reference code."""
    params = fno.init(jax.random.PRNGKey(0), 1, 1, (12, 12), 32, 4)
    assert fno.count(params) == 2368001


def test_relative_l2_per_sample():
    rng = np.random.default_rng(0)
    true, pred = rng.standard_normal((2, 3, 8, 8, 2))
    want = np.linalg.norm((pred - true).reshape(3, -1), axis=1) / np.linalg.norm(true.reshape(3, -1), axis=1)
    np.testing.assert_allclose(jax.jit(lambda p, t: losses.rel_l2(p, t, reduce=False))(pred, true), want, rtol=1e-12)
    np.testing.assert_allclose(jax.jit(losses.rel_l2)(pred, true), want.mean(), rtol=1e-12)
    assert np.isfinite(np.asarray(jax.jit(jax.grad(losses.rel_l2))(true, true))).all()  # finite at zero error


def test_h1_by_fft_derivatives():
    """u = sin(2πx), error sin(6πx): ||e||_H1 / ||u||_H1 = sqrt((1 + 36π²) / (1 + 4π²))."""
    x = np.arange(32) / 32
    u = np.sin(2 * np.pi * x)[None, :, None]
    e = np.sin(6 * np.pi * x)[None, :, None]
    want = np.sqrt((1 + 36 * np.pi ** 2) / (1 + 4 * np.pi ** 2))
    h1 = jax.jit(losses.h1)
    np.testing.assert_allclose(h1(u + e, u), want, rtol=1e-12)
    # 2-D, with a derivative in y only: u = cos(2π(x + 2y))
    X, Y = np.meshgrid(x, x, indexing="ij")
    u2 = np.cos(2 * np.pi * (X + 2 * Y))[None, ..., None]
    np.testing.assert_allclose(h1(2 * u2, u2), 1.0, rtol=1e-12)
    np.testing.assert_allclose(jax.jit(losses.h1_norm_sq)(u2)[0], 0.5 * (1 + 4 * np.pi ** 2 * 5), rtol=1e-12)
