"""Losses for operator learning, per sample and averaged over the batch (as in Li et al. 2021).

Arrays are ``(batch, n_1..n_d, channels)``.

- relative L2:  ``mean_b ||u_b - v_b||_2 / ||v_b||_2`` (norms over all grid points and channels);
- relative H1:  the same with the Sobolev norm ``||u||²_{H1} = Σ_k (1 + |2πk|²) |û(k)|²`` on the unit
  periodic box, computed with the FFT (derivatives are exact for trigonometric interpolants).

On a uniform grid the discrete norms approximate the continuous ones up to one common factor, which
cancels in the ratio, so both errors compare across resolutions.
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp


def _eps(x):
    return jnp.finfo(x.dtype).tiny


def rel_l2(pred, true, *, reduce: bool = True):
    """Relative L2 error per sample (``reduce=False``) or its batch mean."""
    b = true.shape[0]
    diff = jnp.reshape(pred - true, (b, -1))
    ref = jnp.reshape(true, (b, -1))
    err = _norm(diff) / jnp.maximum(_norm(ref), _eps(ref))
    return jnp.mean(err) if reduce else err


def _norm(x):
    """``||x||_2`` along axis 1, with a finite gradient at 0 (``sqrt(Σ x² + tiny)``)."""
    return jnp.sqrt(jnp.sum(x * x, axis=1) + _eps(x))


def h1_norm_sq(u, d: int | None = None):
    """``Σ_k (1 + |2πk|²) |û(k)|² / N²`` per sample, over the ``d`` spatial axes after the batch axis."""
    d = u.ndim - 2 if d is None else d
    axes = tuple(range(1, 1 + d))
    U = jnp.fft.fftn(u, axes=axes)
    shape = u.shape[1:1 + d]
    k2 = jnp.asarray(0.0)  # weakly typed, like 0.0: the sum takes the wavenumbers' dtype
    for i, n in enumerate(shape):
        k = jnp.fft.fftfreq(n, 1.0 / n)  # integer wavenumbers on the unit box
        k2 = k2 + (2 * jnp.pi * k).reshape([-1 if j == i else 1 for j in range(d)]) ** 2
    w = (1.0 + k2)[None, ..., None] if u.ndim == d + 2 else (1.0 + k2)[None]
    n_total = 1
    for n in shape:
        n_total *= n
    return jnp.sum(jnp.reshape(w * (U.real ** 2 + U.imag ** 2), (u.shape[0], -1)), axis=1) / n_total ** 2


def h1(pred, true, *, d: int | None = None, reduce: bool = True):
    """Relative H1 error per sample or its batch mean; ``d`` spatial axes (default: all but batch, channel)."""
    num = jnp.sqrt(h1_norm_sq(pred - true, d) + _eps(true))
    den = jnp.sqrt(h1_norm_sq(true, d))
    err = num / jnp.maximum(den, _eps(den))
    return jnp.mean(err) if reduce else err


LOSSES: dict[str, Callable[..., jax.Array]] = {"rel_l2": rel_l2, "h1": h1}
