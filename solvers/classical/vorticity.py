r"""2D incompressible Navier–Stokes in vorticity form on the unit torus :math:`[0, 1)^2`:

.. math:: \partial_t w + u\cdot\nabla w = \nu\Delta w + f, \qquad u = \nabla^\perp\psi = (\psi_y, -\psi_x),
          \qquad -\Delta\psi = w.

Pseudo-spectral on :math:`x_j = j/s` (``ij`` order: axis 0 is :math:`x`): with :math:`\kappa = 2\pi k` and
:math:`\lambda = |\kappa|^2`, :math:`\hat\psi = \hat w/\lambda`; :math:`u, v, w_x, w_y` by inverse FFT of
:math:`i\kappa_y\hat\psi, -i\kappa_x\hat\psi, i\kappa_x\hat w, i\kappa_y\hat w`; the advection
:math:`\hat N(\hat w) = \mathbb{1}\,\mathrm{FFT}(u w_x + v w_y)` dealiased by the 2/3 rule
(:math:`|k_x|, |k_y| \le \frac23\frac s2`), as in the paper's ``ns_2d.py``.

Time stepping: Crank–Nicolson on viscosity, explicit on advection. ``scheme="heun"`` (default) is the
second-order predictor–corrector (CN–Heun), with :math:`A = 1 - \frac h2\nu\lambda`,
:math:`B = 1 + \frac h2\nu\lambda`:

.. math:: B\hat w^* = A\hat w^n + h(\hat f - \hat N(\hat w^n)), \qquad
          B\hat w^{n+1} = A\hat w^n + h\big(\hat f - \tfrac12\hat N(\hat w^n) - \tfrac12\hat N(\hat w^*)\big).

``scheme="euler"`` is the paper's own update (``ns_2d.py``: the first line alone, forward Euler on advection,
first order in :math:`h`). The tests observe order 2 for ``heun``, the exact decay of Taylor–Green vortices,
and the exact forced steady-state approach.

The FNO dataset (Li et al., ICLR 2021, §5.3): :math:`\nu = 10^{-3}`, :math:`T = 50`, one snapshot per time
unit, :math:`h = 10^{-4}`, :math:`f = 0.1(\sin 2\pi(x+y) + \cos 2\pi(x+y))`, and
:math:`w_0 \sim N(0, \sigma^2(-\Delta + 49I)^{-2.5})` with :math:`\sigma = 7^{3/2}` (the code's
``GaussianRF(2, s, alpha=2.5, tau=7)`` sets :math:`\sigma = \tau^{(2\alpha - d)/2} = 7^{3/2}`, so the covariance
is :math:`7^3(-\Delta + 49I)^{-2.5}`; the paper's text writes the factor :math:`7^{3/2}`, which is
:math:`\sigma`, not :math:`\sigma^2`). The paper solves on 256 × 256 and subsamples to 64 × 64.

The default step here is :math:`h = 10^{-3}`, not the paper's :math:`10^{-4}`: measured on a 64² sample of that
distribution over :math:`t \le 10` against CN–Heun at :math:`h = 1.25\cdot10^{-4}`, CN–Heun at
:math:`h = 10^{-3}` is off by :math:`2\cdot10^{-8}` (relative, max norm; :math:`3\cdot10^{-7}` at
:math:`4\cdot10^{-3}`), the paper's scheme at :math:`h = 10^{-4}` by :math:`2.8\cdot10^{-6}`, with 1/5 of the
advection evaluations. Set ``dt=1e-4, scheme="euler"`` to repeat the paper's computation.
"""
from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .burgers import steps_per_record
from .grf import periodic_grf, sample_rngs

ORDER = {"heun": 2, "euler": 1}  # order in the time step of each scheme

SCHEMES = ("heun", "euler")


def forcing(size: int, amplitude: float = 0.1) -> np.ndarray:
    r""":math:`f = A(\sin 2\pi(x + y) + \cos 2\pi(x + y))` on the ``(size, size)`` periodic grid."""
    x = np.arange(size) / size
    X, Y = np.meshgrid(x, x, indexing="ij")
    return amplitude * (np.sin(2.0 * math.pi * (X + Y)) + np.cos(2.0 * math.pi * (X + Y)))


def operators(size: int) -> dict[str, np.ndarray]:
    r"""Real-FFT multipliers on the ``(size, size // 2 + 1)`` grid: ``ikx``, ``iky`` (zero on the Nyquist
    modes), ``lap`` (:math:`|\kappa|^2`), ``inv_lap`` (:math:`1/|\kappa|^2`, 0 at :math:`k = 0`), ``dealias``."""
    kx = np.fft.fftfreq(size, 1.0 / size)[:, None]
    ky = np.fft.rfftfreq(size, 1.0 / size)[None, :]
    nyq = size / 2.0
    lap = 4.0 * math.pi**2 * (kx**2 + ky**2)
    return {
        "ikx": np.where(np.abs(kx) < nyq, 2j * math.pi * kx, 0.0) * np.ones_like(ky),
        "iky": np.where(np.abs(ky) < nyq, 2j * math.pi * ky, 0.0) * np.ones_like(kx),
        "lap": lap,
        "inv_lap": np.where(lap > 0, 1.0 / np.where(lap > 0, lap, 1.0), 0.0),
        "dealias": ((np.abs(kx) <= 2.0 / 3.0 * nyq) & (np.abs(ky) <= 2.0 / 3.0 * nyq)).astype(np.float64),
    }


@partial(jax.jit, static_argnames=("size", "records", "scheme"))
def _integrate(w_hat, f_hat, ops, nu, h, steps, size, records, scheme):
    ikx, iky, lap, inv_lap, mask = (ops[k] for k in ("ikx", "iky", "lap", "inv_lap", "dealias"))
    A = 1.0 - 0.5 * h * nu * lap
    B_inv = 1.0 / (1.0 + 0.5 * h * nu * lap)
    shape = (size, size)

    def advection(w):
        psi = w * inv_lap
        q = jnp.fft.irfft2(jnp.stack([iky * psi, -ikx * psi, ikx * w, iky * w]), s=shape)
        return mask * jnp.fft.rfft2(q[0] * q[2] + q[1] * q[3])

    def step(_, w):
        Nw = advection(w)
        w_star = B_inv * (A * w + h * (f_hat - Nw))
        if scheme == "euler":
            return w_star
        return B_inv * (A * w + h * (f_hat - 0.5 * (Nw + advection(w_star))))

    def record(w, _):
        w = jax.lax.fori_loop(0, steps, step, w)
        return w, jnp.fft.irfft2(w, s=shape)

    _, snaps = jax.lax.scan(record, w_hat, None, length=records)
    return jnp.moveaxis(snaps, 0, -1)


def solve(w0: np.ndarray, f: np.ndarray | None = None, *, nu: float = 1e-3, T: float = 1.0, dt: float = 1e-3,
          record_steps: int = 1, scheme: str = "heun") -> np.ndarray:
    r"""Vorticity from ``w0`` of shape ``(n, s, s)`` (``s`` even) with forcing ``f`` (``(s, s)`` or
    ``(n, s, s)``; None: 0) at :math:`t_m = mT/\text{record\_steps}`, :math:`m = 1..\text{record\_steps}`:
    shape ``(n, s, s, record_steps)``. Computed in ``w0``'s precision (float64 by default); ``dt`` is
    shortened where needed so that the records fall on steps."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    w0 = np.asarray(w0)
    dtype = np.float32 if w0.dtype == np.float32 else np.float64
    s = w0.shape[-1]
    f = np.zeros((s, s)) if f is None else np.asarray(f)
    steps, h = steps_per_record(T, dt, record_steps)
    with jax.enable_x64(dtype == np.float64):
        cdtype = jnp.complex128 if dtype == np.float64 else jnp.complex64
        ops = {k: jnp.asarray(v, cdtype if k in ("ikx", "iky") else dtype) for k, v in operators(s).items()}
        w_hat = jnp.fft.rfft2(jnp.asarray(w0, dtype))
        f_hat = jnp.fft.rfft2(jnp.asarray(f, dtype))
        out = _integrate(w_hat, f_hat, ops, jnp.asarray(nu, dtype), jnp.asarray(h, dtype), steps, s,
                         record_steps, scheme)
        return np.asarray(out)


def generate(n_samples: int, resolution: int, seed: int, progress=None, *, r: int = 1, nu: float = 1e-3,
             T: float = 50.0, dt: float = 1e-3, record_steps: int | None = None, scheme: str = "heun",
             alpha: float = 2.5, tau: float = 7.0, sigma: float | None = None, forcing_amplitude: float = 0.1,
             batch_size: int = 20, dtype: str = "float64") -> dict[str, np.ndarray]:
    r"""``n_samples`` vorticity trajectories on the periodic ``resolution``² grid, solved on
    ``(r * resolution)``² (the paper: 256² for 64², ``r = 4``) and subsampled.

    :math:`w_0 \sim N(0, \sigma^2(-\Delta + \tau^2 I)^{-\alpha})`, :math:`\sigma` by default
    :math:`\tau^{(2\alpha - 2)/2}` (the paper's code). ``record_steps`` snapshots (default: one per time unit,
    ``round(T)``). Returns ``{"a": (n, s, s) w0, "w": (n, s, s, record_steps) w at "t", "t":
    (record_steps,), "f": (s, s) forcing, "x": (s,)}``. Samples are solved ``batch_size`` at a time;
    ``progress(k)`` is called with the number of samples just finished after each batch.
    """
    fine = resolution * r
    if fine % 2:
        raise ValueError(f"the solver grid r * resolution = {fine} must be even")
    record_steps = max(1, round(T)) if record_steps is None else record_steps
    sigma = tau ** (alpha - 1.0) if sigma is None else sigma
    f = forcing(fine, forcing_amplitude)
    rngs = sample_rngs(seed, n_samples)
    a = np.empty((n_samples, resolution, resolution))
    w = np.empty((n_samples, resolution, resolution, record_steps))
    for start in range(0, n_samples, batch_size):
        batch = rngs[start:start + batch_size]
        w0 = np.concatenate([periodic_grf(g, 1, fine, 2, alpha=alpha, tau=tau, sigma=sigma) for g in batch])
        sol = solve(w0.astype(dtype), f, nu=nu, T=T, dt=dt, record_steps=record_steps, scheme=scheme)
        a[start:start + len(batch)] = w0[:, ::r, ::r]
        w[start:start + len(batch)] = sol[:, ::r, ::r]
        if progress is not None:
            progress(len(batch))
    return {"a": a, "w": w, "t": T * np.arange(1, record_steps + 1) / record_steps, "f": f[::r, ::r],
            "x": np.arange(resolution) / resolution}
