r"""1D viscous Burgers :math:`u_t + (u^2/2)_x = \nu u_{xx}` on the periodic interval :math:`[0, 1)`.

Pseudo-spectral in space on :math:`x_j = j/s`: with :math:`\hat u_k` the real-FFT coefficients and
:math:`\kappa = 2\pi k`,

.. math:: \hat u_t = L\hat u + N(\hat u), \qquad L = -\nu\kappa^2, \qquad
          N(\hat u) = -\tfrac{i\kappa}{2}\,\mathbb{1}_{|k| \le s/3}\,\mathrm{FFT}\big((\mathrm{IFFT}\,\hat u)^2\big),

the product dealiased by the 2/3 rule (Orszag). In time, ETDRK4 (Cox & Matthews 2002) in the form of Kassam &
Trefethen (*SIAM J. Sci. Comput.* 26, 2005), with :math:`E = e^{hL}`, :math:`E_2 = e^{hL/2}`:

.. math:: a = E_2\hat u + Q N(\hat u),\quad b = E_2\hat u + Q N(a),\quad c = E_2 a + Q(2N(b) - N(\hat u)),

.. math:: \hat u \leftarrow E\hat u + f_1 N(\hat u) + 2 f_2 (N(a) + N(b)) + f_3 N(c),

where :math:`Q = h\,\frac{e^{z/2} - 1}{z}`, :math:`f_1 = h\,\frac{-4 - z + e^z(4 - 3z + z^2)}{z^3}`,
:math:`f_2 = h\,\frac{2 + z + e^z(z - 2)}{z^3}`, :math:`f_3 = h\,\frac{-4 - 3z - z^2 + e^z(4 - z)}{z^3}` at
:math:`z = hL`, each evaluated as the mean of the same expression over points on a circle of radius 1 around
:math:`z` (Cauchy's integral formula), which avoids the cancellation near :math:`z = 0`. The scheme is fourth
order in :math:`h` and stable for the stiff diffusion; the space discretisation converges spectrally.

The FNO dataset (Li et al., ICLR 2021, §5.1): :math:`\nu = 0.1`,
:math:`u_0 \sim N(0, 625(-\Delta + 25I)^{-2})` (``grf.periodic_grf`` with :math:`\sigma = 25`,
:math:`\tau = 5`, :math:`\alpha = 2`), the map :math:`u_0 \mapsto u(\cdot, 1)`; the paper solves on 8192 points
and subsamples. The exact solution for tests is the Cole–Hopf transform :math:`u = -2\nu\,\phi_x/\phi`,
:math:`\phi_t = \nu\phi_{xx}`, :math:`\phi_0 = \exp(-\int_0^x u_0 / 2\nu)` (``cole_hopf``).

Defaults, measured here: ``dt = 1e-3`` is within :math:`1.5\cdot10^{-9}` (relative, max norm) of ``dt = 2.5e-4``
on 8192-point samples of the paper's field (:math:`10^{-7}` at ``5e-3``, :math:`8\cdot10^{-7}` at ``1e-2``; on
these rough data the observed order is about 3, on smooth data 4). ``r = 1``: the initial field is drawn
band-limited to the stored grid, so the stored pair is the exact map of the stored input. With ``r = 8`` at
1024 (the paper's 8192) :math:`u_0` has modes up to 4096 that the 1024-point samples alias; the outputs then
differ by about :math:`10^{-6}` from those of the subsampled input.
"""
from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile import MARCHING

from .grf import periodic_grf, sample_rngs

ORDER = 4  # ETDRK4 converges at order 4 in the time step (spectrally in space)


def etdrk4_coefficients(L: np.ndarray, dt: float, contour_points: int = 32) -> tuple[np.ndarray, ...]:
    r"""``(E, E2, Q, f1, f2, f3)`` for the diagonal linear operator ``L`` (real, :math:`\le 0`) and step
    ``dt``; the :math:`\varphi`-functions by the mean over ``contour_points`` points :math:`z + e^{i\theta_m}`,
    :math:`\theta_m = \pi(m - \frac12)/M` on the upper half circle (the lower half gives the conjugates, so the
    real part of the mean is the mean over the whole circle)."""
    z = dt * np.asarray(L, dtype=np.float64)
    r = np.exp(1j * math.pi * (np.arange(1, contour_points + 1) - 0.5) / contour_points)
    Z = z[..., None] + r
    eZ = np.exp(Z)

    def mean(expr):
        return dt * np.mean(expr, axis=-1).real

    Q = mean((np.exp(Z / 2) - 1.0) / Z)
    f1 = mean((-4.0 - Z + eZ * (4.0 - 3.0 * Z + Z**2)) / Z**3)
    f2 = mean((2.0 + Z + eZ * (Z - 2.0)) / Z**3)
    f3 = mean((-4.0 - 3.0 * Z - Z**2 + eZ * (4.0 - Z)) / Z**3)
    return np.exp(z), np.exp(z / 2), Q, f1, f2, f3


def steps_per_record(T: float, dt: float, records: int) -> tuple[int, float]:
    """Steps between records and the step actually taken (``<= dt``, so that they land on ``T j/records``)."""
    m = max(1, math.ceil(T / records / dt - 1e-9))
    return m, T / records / m


@partial(jax.jit, static_argnames=("size", "records"), compiler_options=MARCHING)
def _integrate(v, coeffs, g, size, steps, records):
    E, E2, Q, f1, f2, f3 = coeffs

    def N(w):
        return g * jnp.fft.rfft(jnp.fft.irfft(w, n=size) ** 2)

    def step(_, w):
        Nw = N(w)
        a = E2 * w + Q * Nw
        Na = N(a)
        b = E2 * w + Q * Na
        Nb = N(b)
        c = E2 * a + Q * (2.0 * Nb - Nw)
        return E * w + f1 * Nw + 2.0 * f2 * (Na + Nb) + f3 * N(c)

    def record(w, _):
        w = jax.lax.fori_loop(0, steps, step, w)
        return w, jnp.fft.irfft(w, n=size)

    _, snaps = jax.lax.scan(record, v, None, length=records)
    return jnp.moveaxis(snaps, 0, -1)


def solve(u0: np.ndarray, *, nu: float = 0.1, T: float = 1.0, dt: float = 1e-3, record_steps: int = 1,
          dealias: bool = True, contour_points: int = 32) -> np.ndarray:
    r"""Burgers from ``u0`` of shape ``(n, s)`` (periodic grid :math:`x_j = j/s`, ``s`` even): the solution
    at :math:`t_m = mT/\text{record\_steps}`, :math:`m = 1..\text{record\_steps}`, shape
    ``(n, s, record_steps)``. Computed in ``u0``'s precision (float64 by default); ``dt`` is shortened where
    needed so that the records fall on steps."""
    u0 = np.asarray(u0)
    dtype = np.float32 if u0.dtype == np.float32 else np.float64
    s = u0.shape[-1]
    k = np.fft.rfftfreq(s, 1.0 / s)
    kappa = 2.0 * math.pi * k
    steps, h = steps_per_record(T, dt, record_steps)
    coeffs = etdrk4_coefficients(-nu * kappa**2, h, contour_points)
    keep = np.abs(k) <= s / 3.0 if dealias else k < s / 2.0  # without dealiasing still drop the Nyquist mode
    g = np.where(keep, -0.5j * kappa, 0.0)
    with jax.enable_x64(dtype == np.float64):
        cdtype = jnp.complex128 if dtype == np.float64 else jnp.complex64
        v = jnp.fft.rfft(jnp.asarray(u0, dtype))
        out = _integrate(v, tuple(jnp.asarray(c, dtype) for c in coeffs), jnp.asarray(g, cdtype), s, steps,
                         record_steps)
        return np.asarray(out)


def cole_hopf(u0: np.ndarray, t: float, nu: float) -> np.ndarray:
    r"""The exact solution at time ``t`` from ``u0`` sampled on a fine periodic grid ``(..., M)``
    (zero mean, smooth), by the Cole–Hopf transform: :math:`U = \int_0^x u_0` (spectrally),
    :math:`\phi_0 = e^{-U/2\nu}`, :math:`\hat\phi_k(t) = e^{-\nu(2\pi k)^2 t}\hat\phi_k(0)` with
    :math:`\hat\phi_k(0)` by the trapezoidal rule (spectrally accurate for smooth periodic :math:`\phi_0`),
    :math:`u = -2\nu\phi_x/\phi`. Accurate to rounding when ``M`` resolves :math:`\phi_0`."""
    u0 = np.asarray(u0, dtype=np.float64)
    M = u0.shape[-1]
    kappa = 2.0 * math.pi * np.fft.rfftfreq(M, 1.0 / M)
    uh = np.fft.rfft(u0)
    if np.abs(uh[..., 0]).max() > 1e-10 * M * (np.abs(u0).max() + 1e-300):
        raise ValueError("cole_hopf needs a zero-mean u0 (a periodic phi)")
    Uh = np.where(kappa > 0, uh / np.where(kappa > 0, 1j * kappa, 1.0), 0.0)
    U = np.fft.irfft(Uh, n=M)
    U = U - U[..., :1]  # U(0) = 0; the constant cancels in phi_x / phi anyway
    phi0 = np.exp(-(U - U.max(axis=-1, keepdims=True)) / (2.0 * nu))
    ph = np.fft.rfft(phi0) * np.exp(-nu * kappa**2 * t)
    return -2.0 * nu * np.fft.irfft(1j * kappa * ph, n=M) / np.fft.irfft(ph, n=M)


def cole_hopf_sine(x: np.ndarray, t: float, nu: float, amplitude: float = 1.0, terms: int = 80) -> np.ndarray:
    r"""Closed form for :math:`u_0 = A\sin 2\pi x`: with :math:`c = A/(4\pi\nu)` and
    :math:`e^{c\cos\theta} = I_0(c) + 2\sum_k I_k(c)\cos k\theta`,

    .. math:: u = \frac{8\pi\nu\sum_{k\ge1} k I_k(c) e^{-4\pi^2\nu k^2 t}\sin 2\pi k x}
                       {I_0(c) + 2\sum_{k\ge1} I_k(c) e^{-4\pi^2\nu k^2 t}\cos 2\pi k x}.
    """
    from scipy.special import ive

    c = amplitude / (4.0 * math.pi * nu)
    k = np.arange(1, terms + 1)
    w = ive(k, c) * np.exp(-4.0 * math.pi**2 * nu * k**2 * t)
    x = np.asarray(x, dtype=np.float64)[..., None]
    num = 8.0 * math.pi * nu * np.sum(k * w * np.sin(2.0 * math.pi * k * x), axis=-1)
    den = ive(0, c) + 2.0 * np.sum(w * np.cos(2.0 * math.pi * k * x), axis=-1)
    return num / den


def generate(n_samples: int, resolution: int, seed: int, progress=None, *, r: int = 1, nu: float = 0.1,
             T: float = 1.0, dt: float = 1e-3, record_steps: int = 1, alpha: float = 2.0, tau: float = 5.0,
             sigma: float = 25.0, batch_size: int = 100, dtype: str = "float64") -> dict[str, np.ndarray]:
    r"""``n_samples`` Burgers pairs :math:`(u_0, u(\cdot, T))` on the periodic ``resolution``-point grid,
    solved on ``r * resolution`` points (the paper: 8192 = 8 × 1024) and subsampled.

    :math:`u_0 \sim N(0, \sigma^2(-\Delta + \tau^2 I)^{-\alpha})` drawn on the solver grid. Returns
    ``{"a": (n, s) u0, "u": (n, s) u(T), "x": (s,)}``, and with ``record_steps > 1`` also
    ``"trajectory": (n, s, record_steps)`` at ``"t": T m/record_steps``. Samples are solved ``batch_size`` at
    a time; ``progress(k)`` is called with the number of samples just finished after each batch.
    """
    fine = resolution * r
    if fine % 2:
        raise ValueError(f"the solver grid r * resolution = {fine} must be even")
    rngs = sample_rngs(seed, n_samples)
    a = np.empty((n_samples, resolution))
    traj = np.empty((n_samples, resolution, record_steps))
    for start in range(0, n_samples, batch_size):
        batch = rngs[start:start + batch_size]
        u0 = np.concatenate([periodic_grf(g, 1, fine, 1, alpha=alpha, tau=tau, sigma=sigma) for g in batch])
        u = solve(u0.astype(dtype), nu=nu, T=T, dt=dt, record_steps=record_steps)
        a[start:start + len(batch)] = u0[:, ::r]
        traj[start:start + len(batch)] = u[:, ::r]
        if progress is not None:
            progress(len(batch))
    out = {"a": a, "u": traj[..., -1], "x": np.arange(resolution) / resolution}
    if record_steps > 1:
        out.update(trajectory=traj, t=T * np.arange(1, record_steps + 1) / record_steps)
    return out
