"""Fourier neural operators as plain pytrees: ``params = init(key, ...)``, ``y = apply(params, x)``.

Li, Kovachki, Azizzadenesheli, Liu, Bhattacharya, Stuart & Anandkumar, *Fourier Neural Operator for
Parametric Partial Differential Equations*, ICLR 2021. For an input ``a`` of shape ``(batch, n_1..n_d, c_in)``
(channels last):

    v_0     = P(a, grid)                                  lifting, pointwise
    v_{l+1} = σ( K_l v_l + W_l v_l + b_l )                l = 0..L-1 (no σ after the last layer)
    u       = Q(v_L)                                      projection, pointwise MLP

The spectral convolution keeps the low modes of the real FFT ``V = rfftn(v)`` over the spatial axes,

    (K v)(x) = irfftn( R(k) · V(k) ),   k ∈ K = [-m_1, m_1) × ... × [-m_{d-1}, m_{d-1}) × [0, m_d),

with a complex matrix ``R(k) ∈ C^{c×c}`` per kept mode (modes outside ``K`` are set to zero). The forward
FFT is unnormalised and the inverse carries 1/N, so the same ``R`` acts on the same function at every
resolution: the parameters do not depend on the grid (zero-shot super-resolution).

Complex weights are stored as real pairs (last axis 2) so that optimisers see real arrays. Non-periodic
problems pad the lifted field on the right of each axis (``padding``) and crop before the projection.

Two ways to transform (``spectral``, :func:`spectral_method`). XLA's FFT (``fft``) computes the whole
spectrum and keeps a corner of it. An FNO keeps few modes (12 of 96 per axis for Darcy), so the truncated
DFT, the same sums as matrix products with ``F_a[j, k] = exp(-2πi jk / n_a)`` for the kept ``k`` only, costs
about twice the FFT's operations but runs as dense GEMMs, which a CPU does several times faster (``dft``,
:func:`spectral_conv_t`): on the inverse side ``(1/n_a) Σ_k exp(+2πi jk / n_a) (·)`` on the leading axes and,
on the last (real) axis, ``(1/n) Re Σ_k c_k exp(+2πi jk / n) (·)`` with ``c_k = 2`` except ``c_0 = 1`` (and the
Nyquist mode's 1): the Hermitian half that ``irfft`` implies. The network then runs in the layout
``(n_d, ..., n_1, batch, channels)``, where every transform contracts the leading axis (one row-major GEMM,
no transpose of a full field) and the pointwise layers contract the last. ``auto`` takes the DFT: it was the
faster on a 2-core CPU (2-4x) and on an H200 GPU (1.5-1.8x at the FNO paper's Darcy, 3-D and recurrent 2-D
sizes, ``sciml bench fno-step``); ``fft`` is there to measure against, and for grids far larger than the kept
modes. A grid whose size is symbolic (``jax.export`` shape polymorphism: one export for
every resolution) always takes the DFT, since XLA's FFT lengths are static; there the last axis must hold
``2 m_d`` points (no Nyquist mode among the kept ones). Both give the same result to rounding.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from .mlp import ACTIVATIONS

if TYPE_CHECKING:  # shapes for the reader and the type checker; jaxtyping is not needed at run time
    from jaxtyping import Array, Float

GridKind = str  # "closed": linspace(0, 1, n) (grid includes both ends); "periodic": arange(n) / n


def _dense(n_in: int, n_out: int) -> dict:
    """Specs of PyTorch-style ``U(-1/sqrt(n_in), 1/sqrt(n_in))`` weights and biases."""
    bound = 1.0 / float(n_in) ** 0.5
    return {"W": ((n_in, n_out), -bound, bound), "b": ((n_out,), -bound, bound)}


def _mlp(sizes: Sequence[int]) -> list[dict]:
    return [_dense(a, b) for a, b in zip(sizes[:-1], sizes[1:])]


def _draw(key, specs, dtype):
    """Replace each ``(shape, lo, hi)`` in the pytree ``specs`` by ``U(lo, hi)`` samples.

    One call of ``jax.random.uniform`` for all leaves, cut up with NumPy outside ``jit`` (one small compile
    instead of one per shape) and with ``jax.numpy`` inside.
    """
    is_spec = lambda s: isinstance(s, tuple) and len(s) == 3 and isinstance(s[0], tuple)
    leaves, treedef = jax.tree_util.tree_flatten(specs, is_leaf=is_spec)
    sizes = [int(np.prod(shape)) for shape, _, _ in leaves]
    u: jax.Array | np.ndarray = jax.random.uniform(key, (sum(sizes),), dtype)
    if not isinstance(u, jax.core.Tracer):
        u = np.asarray(u)
    out, start = [], 0
    for (shape, lo, hi), n in zip(leaves, sizes):
        out.append(jnp.asarray((lo + (hi - lo) * u[start:start + n]).reshape(shape).astype(u.dtype)))
        start += n
    return jax.tree_util.tree_unflatten(treedef, out)


def _affine(layer: dict, x):
    """``x @ W + b`` on the last axis of ``x``, as one 2-D product over the leading axes flattened: the same
    numbers, but XLA on a CPU differentiates the 2-D form about twice as fast (the weight gradient of a
    product over several leading axes went through a transposed copy of the field)."""
    y = x.reshape((-1, x.shape[-1])) @ layer["W"] + layer["b"]
    return y.reshape((*x.shape[:-1], y.shape[-1]))


def _mlp_apply(layers: list[dict], x, act: Callable):
    for i, layer in enumerate(layers):
        x = _affine(layer, x)
        if i < len(layers) - 1:
            x = act(x)
    return x


def spectral_init(key, modes: Sequence[int], c_in: int, c_out: int, dtype=jnp.float32):
    """Weights ``(2 m_1, ..., 2 m_{d-1}, m_d, c_in, c_out, 2)`` (real, imaginary), ``U(0, 1/(c_in c_out))``.

    Along the first d-1 axes the block holds frequencies ``0..m-1`` then ``-m..-1``.
    """
    return _draw(key, _spectral(modes, c_in, c_out), dtype)


def _spectral(modes, c_in, c_out):
    shape = tuple(2 * m for m in modes[:-1]) + (modes[-1], c_in, c_out, 2)
    return (shape, 0.0, 1.0 / (c_in * c_out))


def spectral_modes(weights) -> tuple[int, ...]:
    """The modes ``(m_1, ..., m_d)`` a spectral weight array was built for."""
    d = weights.ndim - 3
    return tuple(n // 2 for n in weights.shape[:d - 1]) + (weights.shape[d - 1],)


def check_modes(modes: Sequence[int], shape: Sequence[int]) -> None:
    """Raise ``ValueError`` unless grid ``shape`` holds ``modes``: 2m <= n (m <= n//2 + 1 on the last axis)."""
    for axis, (m, n) in enumerate(zip(modes, shape)):
        limit = n // 2 + 1 if axis == len(modes) - 1 else n // 2
        if m > limit:
            raise ValueError(f"{m} modes on axis {axis} need a grid of at least "
                             f"{2 * m - 2 if axis == len(modes) - 1 else 2 * m} points, got {n}")


def is_static(shape: Sequence) -> bool:
    """Whether every size is a number known at trace time (not a ``jax.export`` symbolic dimension)."""
    return all(isinstance(n, (int, np.integer)) for n in shape)


def _kept(m: int, half: bool) -> np.ndarray:
    """The kept frequencies of one axis: ``0..m-1`` on the last (``half``) axis, else ``0..m-1, -m..-1``."""
    return np.arange(m) if half else np.concatenate([np.arange(m), np.arange(-m, 0)])


def _cos_sin(n, k: np.ndarray, dtype, rows=None):
    """``cos θ`` and ``sin θ``, ``θ = 2π jk/n`` for ``j = 0..rows-1`` (``rows``: ``n`` unless given), each
    ``(rows, len(k))``: NumPy (float64, then cast) for sizes known at trace time, ``jax.numpy`` for symbolic ones;
    the phase ``jk mod n`` is reduced in integers first so that it stays exact on large grids."""
    rows = n if rows is None else rows
    if is_static([n, rows]):
        angle = (2 * np.pi) * np.mod(np.outer(np.arange(rows), k), n) / n
        return np.cos(angle).astype(dtype), np.sin(angle).astype(dtype)
    jk = jnp.mod(jnp.arange(rows)[:, None] * jnp.asarray(k)[None, :], n)
    angle = (2 * np.pi) * jk.astype(dtype) / jnp.asarray(n, dtype)
    return jnp.cos(angle), jnp.sin(angle)


def _hermitian(n, k: np.ndarray) -> np.ndarray:
    """Weights of the kept modes of the real (last) axis in the inverse: 1 for ``k = 0`` and the Nyquist mode
    ``k = n/2``, 2 otherwise (each stands for itself and its conjugate). A symbolic ``n`` is taken to hold
    ``2 m`` points (no Nyquist mode among the kept ones)."""
    nyquist = 2 * k == n if is_static([n]) else np.zeros(len(k), bool)
    return np.where((k == 0) | nyquist, 1.0, 2.0)


def _lead(matrix, a):
    """``matrix (p, n)`` applied to ``a``'s leading axis ``(n, ...)``: one GEMM, ``(p, ...)``."""
    return (matrix @ a.reshape(a.shape[0], -1)).reshape((matrix.shape[0], *a.shape[1:]))


def _part(a, i: int, d: int):
    return jax.lax.index_in_dim(a, i, d, keepdims=False)


def spectral_conv_t(weights, v, period: Sequence | None = None, out: Sequence | None = None):
    """``K v`` for ``v`` in the *transposed layout* ``(n_d, ..., n_1, batch, c_in)``, by truncated DFTs as real
    matrix products (the layout :func:`apply` runs in with ``spectral="dft"``).

    ``period``: the transforms' lengths ``(N_1, ..., N_d)`` when ``v`` holds only the first ``n_a <= N_a`` points
    of a field that is zero beyond them (a zero-padded field, whose zeros then cost nothing); ``out``: the
    ``(o_1, ..., o_d)`` first points of the result, ``o_a <= N_a`` (a field about to be cropped, computed only
    where it is kept). Both default to ``v``'s own grid.

    Every transform contracts the tensor's leading axis, so each is one row-major GEMM with no transpose of the
    full field. Forward, the real last axis ``n_d`` first (``[cos; -sin]``, ``2 m_d`` rows, the cheapest first
    step), then each complex axis ``n_{d-1}, ..., n_1`` brought to the front of the (already reduced) tensor;
    the kept block ``(k_1, ..., k_d, re/im, batch, c)`` is mixed per mode as one batched real GEMM of its
    ``2 batch`` rows with the weights as stored, ``(c_in, c_out × (re, im))`` (read in place: no block matrix is
    built, which at a micro-batch of one sample cost more than the transforms), and the four real products are
    recombined; the inverse runs the axes in the other order and ends with the
    Hermitian half of the last axis (:func:`_hermitian`), landing in the input's layout. Complex values are
    real pairs on an ``re/im`` axis (a ``2``) before the batch axis. The sums are the FFT path's
    (:func:`spectral_conv_fft`) to rounding; the transforms run in at least float32. Sizes may be symbolic.
    """
    d = weights.ndim - 3
    given = v.shape[:d][::-1]  # (n_1, ..., n_d)
    shape = given if period is None else tuple(period)  # the transforms' lengths
    out = shape if out is None else tuple(out)
    modes = spectral_modes(weights)
    if is_static(shape):
        check_modes(modes, shape)
    real = jnp.promote_types(v.dtype, jnp.float32)
    kept = [_kept(m, a == d - 1) for a, m in enumerate(modes)]
    # forward: the real last axis, leading in memory -> (re; im) on a new axis d
    c, s = _cos_sin(shape[-1], kept[-1], real, given[-1])
    z = _lead(jnp.concatenate([c, -s], 1).T, v.astype(real))
    z = jnp.moveaxis(z.reshape((2, len(kept[-1]), *z.shape[1:])), 0, d)  # (k_d, n_{d-1}..n_1, 2, b, c)
    for j in range(1, d):  # the complex axes n_{d-1}, ..., n_1 (at position j after the modes made so far)
        a = d - 1 - j
        c, s = _cos_sin(shape[a], kept[a], real, given[a])
        t = _lead(jnp.concatenate([c, s], 1).T, jnp.moveaxis(z, j, 0))
        t = t.reshape((2, len(kept[a]), *t.shape[1:]))  # (cos, sin) x (re, im) sums
        z = jnp.stack((_part(t[0], 0, d) + _part(t[1], 1, d), _part(t[0], 1, d) - _part(t[1], 0, d)), d)
    # z: (k_1, ..., k_d, 2, b, c); per mode the rows (re, im) x batch times the weights read in place as
    # (c_in, c_out x (re, im)): four real products per entry, then recombined into the complex product
    b, c_in = z.shape[-2], z.shape[-1]
    w = weights.astype(real).reshape((*weights.shape[:d], c_in, -1))
    p = _mix(z.reshape((*z.shape[:d], 2 * b, c_in)), w)
    p = p.reshape((*z.shape[:d], 2, b, -1, 2))  # (k_1, ..., k_d, re/im of z, b, c_out, re/im of R)
    z = jnp.stack((_part(_part(p, 0, d), 0, d + 2) - _part(_part(p, 1, d), 1, d + 2),
                   _part(_part(p, 0, d), 1, d + 2) + _part(_part(p, 1, d), 0, d + 2)), d)
    for a in range(d - 1):  # inverse on the complex axes n_1, ..., n_{d-1} (axis a at position a)
        c, s = _cos_sin(shape[a], kept[a], real, out[a])
        t = _lead(jnp.concatenate([c, s], 0) / jnp.asarray(shape[a], real), jnp.moveaxis(z, a, 0))
        t = t.reshape((2, out[a], *t.shape[1:]))
        z = jnp.stack((_part(t[0], 0, d) - _part(t[1], 1, d), _part(t[1], 0, d) + _part(t[0], 1, d)), d)
    # z: (n_{d-1}..n_1, k_d, 2, b, c) -> (2, k_d, n_{d-1}..n_1, b, c): the last axis's Hermitian inverse
    z = jnp.moveaxis(jnp.moveaxis(z, d - 1, 0), d, 0)
    c, s = _cos_sin(shape[-1], kept[-1], real, out[-1])
    h = _hermitian(shape[-1], kept[-1]).astype(real)
    inverse = jnp.concatenate([c * h, -s * h], 1) / jnp.asarray(shape[-1], real)
    return _lead(inverse, z.reshape((-1, *z.shape[2:]))).astype(v.dtype)


OUTER_ROWS = 8  # at most this many rows per mode: _mix's weight gradient as a sum of outer products


@jax.custom_vjp
def _mix(z, w):
    """Per kept mode, ``z (..., r, c_in) @ w (..., c_in, o)``: the ``r`` rows of every mode times its weights.

    The same product as JAX's, with a backward rule of its own: where a mode has few rows (``r = 2 x`` the
    samples of a micro-batch, at most :data:`OUTER_ROWS`), the weight gradient ``Σ_r z_r ⊗ g_r`` is a sum of
    outer products, one elementwise pass that XLA fuses with the micro-batches' running sum of gradients;
    JAX's own transpose is a batched GEMM of depth ``r`` over the modes plus a separate sum (on a 2-core CPU
    12 % of the Darcy step at micro-batches of 2, about 5 % of it saved, ``sciml bench fno-step``). More rows
    (whole batches) keep the GEMM. Gradients equal JAX's to rounding (``tests/nn/test_fno.py``); being a
    ``custom_vjp``, the layer takes reverse-mode derivatives in its weights and inputs, not forward-mode ones."""
    return jnp.einsum("...ri,...io->...ro", z, w)


def _mix_fwd(z, w):
    return _mix(z, w), (z, w)


def _mix_bwd(res, g):
    z, w = res
    dz = jnp.einsum("...ro,...io->...ri", g, w)
    rows = z.shape[-2]
    if is_static([rows]) and rows <= OUTER_ROWS:
        dw = sum(z[..., r, :, None] * g[..., r, None, :] for r in range(rows))
    else:
        dw = jnp.einsum("...ri,...ro->...io", z, g)
    return dz, dw


_mix.defvjp(_mix_fwd, _mix_bwd)


def transposed(d: int) -> tuple[int, ...]:
    """The axis order from ``(batch, n_1..n_d, c)`` to the layout of :func:`spectral_conv_t`."""
    return (*range(d, 0, -1), 0, d + 1)


def _inverse(perm: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argsort(perm))


def spectral_conv_fft(weights, v):
    """``K v`` for ``v`` of shape ``(batch, n_1..n_d, c_in)`` by XLA's FFT (static grids only)."""
    d = weights.ndim - 3
    shape = v.shape[1:1 + d]
    modes = spectral_modes(weights)
    check_modes(modes, shape)
    axes = tuple(range(1, 1 + d))
    real = jnp.promote_types(v.dtype, jnp.float32)
    V = jnp.fft.rfftn(v.astype(real), axes=axes)
    # gather the kept block: [0, m) and [-m, 0) on the leading axes, [0, m) on the last
    block = V[(slice(None),) * d + (slice(0, modes[-1]),)]
    for a, m in zip(axes[:-1], modes[:-1]):
        block = jnp.concatenate([jax.lax.slice_in_dim(block, 0, m, axis=a),
                                 jax.lax.slice_in_dim(block, shape[a - 1] - m, shape[a - 1], axis=a)], axis=a)
    R = jax.lax.complex(weights[..., 0].astype(real), weights[..., 1].astype(real))
    out = jnp.einsum("b...i,...io->b...o", block, R.astype(block.dtype))
    # scatter back into a zero spectrum of the full rfft shape
    out = jnp.pad(out, [(0, 0)] * d + [(0, shape[-1] // 2 + 1 - modes[-1]), (0, 0)])
    for a, m in zip(axes[:-1], modes[:-1]):
        lo, hi = jax.lax.slice_in_dim(out, 0, m, axis=a), jax.lax.slice_in_dim(out, m, 2 * m, axis=a)
        zeros = jnp.zeros(out.shape[:a] + (shape[a - 1] - 2 * m,) + out.shape[a + 1:], out.dtype)
        out = jnp.concatenate([lo, zeros, hi], axis=a)
    return jnp.fft.irfftn(out, s=shape, axes=axes).astype(v.dtype)


SPECTRAL = ("auto", "dft", "fft")  # how the Fourier layers transform: see :func:`spectral_method`


def spectral_method(method: str, shape: Sequence) -> str:
    """``dft`` or ``fft`` for ``method`` on a grid of ``shape``: ``auto`` takes the truncated DFT as matrix
    products (faster than XLA's FFT for the few modes an FNO keeps, on a CPU and on a GPU alike: see the module's
    text); a symbolic grid always takes the DFT (XLA's FFT needs static lengths)."""
    if method not in SPECTRAL:
        raise ValueError(f"spectral method {method!r}: expected one of {', '.join(SPECTRAL)}")
    if not is_static(shape) or method == "auto":
        return "dft"
    return method


def spectral_conv(weights: Float[Array, "*modes c_in c_out 2"],
                  v: Float[Array, "batch *grid c_in"], method: str = "auto") -> Float[Array, "batch *grid c_out"]:
    """``K v`` for ``v`` of shape ``(batch, n_1..n_d, c_in)``: truncated Fourier multiplication.

    ``method`` (:func:`spectral_method`): ``fft`` (:func:`spectral_conv_fft`) or ``dft``
    (:func:`spectral_conv_t` between two transposes). The transforms and the mode mixing run in at least
    float32 (XLA's FFT takes no bfloat16); the result comes back in ``v``'s dtype.
    """
    d = weights.ndim - 3
    if spectral_method(method, v.shape[1:1 + d]) == "fft":
        return spectral_conv_fft(weights, v)
    perm = transposed(d)
    return jnp.transpose(spectral_conv_t(weights, jnp.transpose(v, perm)), _inverse(perm))


def init(key, in_channels: int, out_channels: int, modes: Sequence[int], width: int, layers: int = 4, *,
         lifting: Sequence[int] = (), projection: Sequence[int] = (128,), grid: bool = True,
         dtype=jnp.float32) -> dict:
    """Parameters of an FNO on ``len(modes)`` spatial dimensions.

    ``lifting``/``projection``: hidden widths of the pointwise MLPs before and after the Fourier layers
    (the paper: a linear lifting and one hidden layer of 128). ``grid``: the lifting also reads the
    coordinates of each point (``len(modes)`` extra input channels).
    """
    c_in = in_channels + (len(modes) if grid else 0)
    specs = {"lift": _mlp([c_in, *lifting, width]),
             "layers": [{"spectral": _spectral(modes, width, width), "pointwise": _dense(width, width)}
                        for _ in range(layers)],
             "proj": _mlp([width, *projection, out_channels])}
    params = _draw(key, specs, dtype)
    return params


def grid_channels(shape: Sequence[int], kind: GridKind | Sequence[GridKind], dtype) -> jnp.ndarray:
    """Coordinates ``(n_1..n_d, d)`` in [0, 1]; ``kind`` per axis: ``closed`` or ``periodic``."""
    kinds = [kind] * len(shape) if isinstance(kind, str) else list(kind)
    axes = []
    for n, k in zip(shape, kinds):
        if k == "closed" and not is_static([n]):  # linspace needs a number of points known at trace time
            axes.append(jnp.arange(n, dtype=dtype) / jnp.asarray(n - 1, dtype))
        elif k == "closed":
            axes.append(jnp.linspace(0.0, 1.0, n, dtype=dtype))
        elif k == "periodic":
            axes.append(jnp.arange(n, dtype=dtype) / n)
        else:
            raise ValueError(f"grid kind {k!r}: expected 'closed' or 'periodic'")
    return jnp.stack(jnp.meshgrid(*axes, indexing="ij"), axis=-1)


def apply(params: dict, x: Float[Array, "batch *grid c_in"], *,
          grid: GridKind | Sequence[GridKind] | None = "closed", padding: int | Sequence[int] = 0,
          activation: str | Callable = "gelu", spectral: str = "auto",
          pad_fill: str = "zeros") -> Float[Array, "batch *grid c_out"]:
    """``x (batch, n_1..n_d, c_in) -> (batch, n_1..n_d, c_out)`` at any resolution.

    ``grid``: the kind of coordinates appended to the input (``None`` if the model was built without).
    ``padding``: points appended to each spatial axis after lifting (an int for all axes), for
    non-periodic problems; the output is cropped back to ``n_1..n_d``. ``pad_fill``: what fills them
    (:data:`PAD_FILLS`): ``zeros`` (the paper's) or ``smooth`` (:func:`_pad_smooth`). ``spectral``: how the
    Fourier layers transform (:func:`spectral_method`); with the DFT the network runs in the layout of
    :func:`spectral_conv_t` (the input and the output are transposed once, the hidden fields never).
    """
    v, perm = _trunk(params, x, grid, padding, activation, spectral, pad_fill, crop=True)
    return jnp.transpose(project(params, v, activation), _inverse(perm))


def hidden(params: dict, x: Float[Array, "batch *grid c_in"], *,
           grid: GridKind | Sequence[GridKind] | None = "closed", padding: int | Sequence[int] = 0,
           activation: str | Callable = "gelu", spectral: str = "auto",
           pad_fill: str = "zeros") -> Float[Array, "batch *padded width"]:
    """The last Fourier layer's output ``v_L`` on the padded grid, ``(batch, n_1 + p_1, ..., n_d + p_d, width)``
    (before the crop and the projection: :func:`apply` is ``project(hidden(...))`` cropped to ``n_1..n_d``).
    Arguments as for :func:`apply`."""
    v, perm = _trunk(params, x, grid, padding, activation, spectral, pad_fill)
    return jnp.transpose(v, _inverse(perm))


def project(params: dict, v, activation: str | Callable = "gelu"):
    """The pointwise projection ``Q`` on the last (channel) axis of ``v``: ``(..., width) -> (..., c_out)``."""
    return _mlp_apply(params["proj"], v, ACTIVATIONS[activation] if isinstance(activation, str) else activation)


def _pad_zeros(v, pads):
    """Zeros appended on the right of each axis with a padding (``pads``: per axis of ``v``, ``None`` for none)."""
    return jnp.pad(v, [(0, p or 0) for p in pads])


def _pad_smooth(v, pads):
    """The padding zone filled by a cosine blend from the field's last value on an axis back to its first,

        v(n - 1 + j) = v(n - 1) (1 - s_j) + v(0) s_j,   s_j = (1 - cos π t_j) / 2,   t_j = j / (p + 1),

    for ``j = 1..p``, axis after axis (so the corners blend the blended edges): the padded field is continuous
    round the period, where zeros leave a jump at both ends of the domain. A jump's Fourier coefficients decay
    like 1/k and its samples alias at first order in the grid step, so the kept modes of a zero-padded field
    differ between resolutions by O(h); continuous, by O(h^2). ``t_j`` is the position in the padding zone as a
    fraction of it, the same on every grid whose padding keeps the period."""
    for axis, p in enumerate(pads):
        if p is None or (isinstance(p, int) and p == 0):
            continue
        first = jax.lax.slice_in_dim(v, 0, 1, axis=axis)
        last = jax.lax.slice_in_dim(v, v.shape[axis] - 1, v.shape[axis], axis=axis)
        t = (jnp.arange(p) + 1).astype(v.dtype) / jnp.asarray(p + 1, v.dtype)
        s = ((1 - jnp.cos(np.pi * t)) / 2).reshape((-1,) + (1,) * (v.ndim - axis - 1))
        v = jnp.concatenate([v, last + (first - last) * s], axis=axis)
    return v


PAD_FILLS = {"zeros": _pad_zeros, "smooth": _pad_smooth}  # what fills the padding zone (``pad_fill``)


def _trunk(params: dict, x, grid, padding, activation, spectral, fill="zeros", crop=False):
    """Lifting, padding and the Fourier layers: ``(v_L, perm)``, ``v_L`` in the layout ``perm``, cropped back to
    the input's grid when ``crop``. With the DFT, the padding costs less than its points: the first layer's forward
    transforms read the lifted field alone when the padding is zeros (``period``), and a cropped last layer is
    computed on the kept points only (``out`` of :func:`spectral_conv_t`)."""
    act = ACTIVATIONS[activation] if isinstance(activation, str) else activation
    d = params["layers"][0]["spectral"].ndim - 3 if params["layers"] else x.ndim - 2
    shape = x.shape[1:1 + d]
    if x.ndim != d + 2:
        raise ValueError(f"expected input (batch, {d} spatial axes, channels), got shape {x.shape}")
    if grid is not None:
        g = grid_channels(shape, grid, x.dtype)
        x = jnp.concatenate([x, jnp.broadcast_to(g, x.shape[:1] + g.shape)], axis=-1)
    if x.shape[-1] != params["lift"][0]["W"].shape[0]:
        raise ValueError(f"the model reads {params['lift'][0]['W'].shape[0]} channels, got {x.shape[-1]} "
                         f"(grid={grid!r})")
    if fill not in PAD_FILLS:
        raise ValueError(f"pad_fill {fill!r}: expected one of {', '.join(PAD_FILLS)}")
    pads = (padding,) * d if isinstance(padding, int) else tuple(padding)
    padded = not all(isinstance(p, int) and p == 0 for p in pads)  # a symbolic padding is taken as nonzero
    dft = spectral_method(spectral, [n + p for n, p in zip(shape, pads)]) == "dft"
    perm = transposed(d) if dft else tuple(range(d + 2))  # the layout the layers run in
    lifted = v = _mlp_apply(params["lift"], jnp.transpose(x, perm), act)
    if padded:
        v = PAD_FILLS[fill](v, [(None, *pads, None)[a] for a in perm])
    kept = tuple((slice(None), *[slice(0, n) for n in shape], slice(None))[a] for a in perm)
    period = tuple(n + p for n, p in zip(shape, pads))
    layers = params["layers"]
    for i, layer in enumerate(layers):
        if not dft:
            v = spectral_conv_fft(layer["spectral"], v) + _affine(layer["pointwise"], v)
        else:
            src = lifted if i == 0 and fill == "zeros" else v  # zeros beyond the lifted field add nothing
            cut = crop and padded and i == len(layers) - 1
            v = (spectral_conv_t(layer["spectral"], src, period, shape if cut else None)
                 + _affine(layer["pointwise"], v[kept] if cut else v))
        if i < len(layers) - 1:
            v = act(v)
    if crop and padded and not (dft and layers):
        v = v[kept]
    return v, perm


def count(params) -> int:
    """Number of real parameters."""
    return sum(int(a.size) for a in jax.tree_util.tree_leaves(params))
