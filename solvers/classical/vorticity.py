r"""2D incompressible Navier–Stokes in vorticity form on the unit torus :math:`[0, 1)^2`:

.. math:: \partial_t w + u\cdot\nabla w = \nu\Delta w + f, \qquad u = \nabla^\perp\psi = (\psi_y, -\psi_x),
          \qquad -\Delta\psi = w.

Pseudo-spectral on :math:`x_j = j/s` (``ij`` order: axis 0 is :math:`x`): with :math:`\kappa = 2\pi k` and
:math:`\lambda = |\kappa|^2`, :math:`\hat\psi = \hat w/\lambda`; :math:`u, v, w_x, w_y` by inverse FFT of
:math:`i\kappa_y\hat\psi, -i\kappa_x\hat\psi, i\kappa_x\hat w, i\kappa_y\hat w`; the advection
:math:`\hat N(\hat w) = \mathbb{1}\,\mathrm{FFT}(u w_x + v w_y)` dealiased by the 2/3 rule
(:math:`|k_x|, |k_y| \le \frac23\frac s2`), as in the paper's ``ns_2d.py``.

Time stepping (``scheme``, a rule table: :data:`RULES`). ``"heun"`` (default) and ``"euler"``: Crank–Nicolson on
viscosity, explicit on advection; ``heun`` is the second-order predictor–corrector (CN–Heun), with
:math:`A = 1 - \frac h2\nu\lambda`, :math:`B = 1 + \frac h2\nu\lambda`:

.. math:: B\hat w^* = A\hat w^n + h(\hat f - \hat N(\hat w^n)), \qquad
          B\hat w^{n+1} = A\hat w^n + h\big(\hat f - \tfrac12\hat N(\hat w^n) - \tfrac12\hat N(\hat w^*)\big).

``scheme="euler"`` is the paper's own update (``ns_2d.py``: the first line alone, forward Euler on advection,
first order in :math:`h`). ``scheme="ifrk4"``: the integrating factor :math:`E = e^{hL}`,
:math:`L = -\nu\lambda`, takes the viscosity exactly and classical RK4 the rest, :math:`G(\hat w) = \hat f -
\hat N(\hat w)` (fourth order):

.. math:: k_1 = G(\hat w^n),\ k_2 = G(E_2(\hat w^n + \tfrac h2 k_1)),\ k_3 = G(E_2\hat w^n + \tfrac h2 k_2),\
          k_4 = G(E\hat w^n + hE_2k_3),\qquad
          \hat w^{n+1} = E\hat w^n + \tfrac h6\big(Ek_1 + 2E_2(k_2 + k_3) + k_4\big),

with :math:`E_2 = e^{hL/2}`. The tests observe each scheme's order, the exact decay of Taylor–Green vortices
and the exact forced steady-state approach.

Step length: ``dt`` fixed (shortened so that the records fall on steps), or with ``cfl = C`` chosen for each
sample at the start of each record interval as the fewest equal steps of at most ``dt`` and at most
:math:`C/(\kappa_{max}(\max|u| + \max|v|))`, :math:`\kappa_{max} = 2\pi\lfloor s/3\rfloor` the largest
wavenumber the dealiasing keeps (:func:`cfl_steps`). The step then follows the flow (the forcing speeds it up
about fivefold over :math:`t \le 30` at :math:`\nu = 10^{-3}`) and the grid (four times shorter on 256² than on
64²), and a sample's trajectory does not depend on the others solved with it. On the FNO data IF–RK4 stays
stable up to :math:`C \approx 7` (blows up at 8); the cases use :math:`C = 3`, steps of at most 0.1.

The FNO dataset (Li et al., ICLR 2021, §5.3): :math:`\nu = 10^{-3}`, :math:`T = 50`, one snapshot per time
unit, :math:`h = 10^{-4}`, :math:`f = 0.1(\sin 2\pi(x+y) + \cos 2\pi(x+y))`, and
:math:`w_0 \sim N(0, \sigma^2(-\Delta + 49I)^{-2.5})` with :math:`\sigma = 7^{3/2}` (the code's
``GaussianRF(2, s, alpha=2.5, tau=7)`` sets :math:`\sigma = \tau^{(2\alpha - d)/2} = 7^{3/2}`, so the covariance
is :math:`7^3(-\Delta + 49I)^{-2.5}`; the paper's text writes the factor :math:`7^{3/2}`, which is
:math:`\sigma`, not :math:`\sigma^2`). The paper solves on 256 × 256 and subsamples to 64 × 64.

Measured here on 64² samples of that distribution (5 trajectories, relative L2 at :math:`t = 10, 30, 50`):
IF–RK4 with :math:`C = 3`, steps at most 0.1 (about 13 steps per time unit, 53 advection evaluations) is
within :math:`1.4\cdot10^{-8}, 1.1\cdot10^{-7}, 1.8\cdot10^{-7}` of CN–Heun at :math:`h = 10^{-3}` (2000
evaluations); CN–Heun itself at :math:`h = 0.025` (80 evaluations) is off by :math:`1.6\cdot10^{-6},
4\cdot10^{-5}, 8.4\cdot10^{-5}` and blows up at :math:`h = 0.1`. Solved in float32 the same IF–RK4 is off by
:math:`6\cdot10^{-6}` at :math:`t = 50` (rounding) for half the time. How far a 64² solve is from the
paper's 256² one: :func:`sciml.bench.studies.vorticity_grid_gap` and ``cases/ns_fno.yaml``. ``generate``
draws :math:`w_0` on the solver's grid (its modes beyond 64² carry :math:`5\cdot10^{-5}` of the variance on
256²). The default ``heun`` with :math:`h = 10^{-3}` is kept for reproducibility; set ``dt=1e-4,
scheme="euler"`` to repeat the paper's computation.
"""
from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from sciml.compile import MARCHING
from sciml.errors import UserError

from .burgers import steps_per_record
from .grf import periodic_grf, sample_rngs


class Unstable(UserError):
    """The time step was too long for the scheme's stability: the solution is not finite."""


ORDER = {"heun": 2, "euler": 1, "ifrk4": 4}  # order in the time step of each scheme

SCHEMES = tuple(ORDER)


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


def _cn(h, nu, lap):
    """Crank–Nicolson's factors ``(A, 1/B)``."""
    return 1.0 - 0.5 * h * nu * lap, 1.0 / (1.0 + 0.5 * h * nu * lap)


def _integrating_factor(h, nu, lap):
    r""":math:`(e^{hL}, e^{hL/2})`, :math:`L = -\nu\lambda`."""
    return jnp.exp(-h * nu * lap), jnp.exp(-0.5 * h * nu * lap)


def _euler(w, f_hat, h, coeffs, advection):
    A, B_inv = coeffs
    return B_inv * (A * w + h * (f_hat - advection(w)))


def _heun(w, f_hat, h, coeffs, advection):
    A, B_inv = coeffs
    Nw = advection(w)
    w_star = B_inv * (A * w + h * (f_hat - Nw))
    return B_inv * (A * w + h * (f_hat - 0.5 * (Nw + advection(w_star))))


def _ifrk4(w, f_hat, h, coeffs, advection):
    E, E2 = coeffs

    def N(v):
        return f_hat - advection(v)

    k1 = N(w)
    k2 = N(E2 * (w + 0.5 * h * k1))
    k3 = N(E2 * w + 0.5 * h * k2)
    k4 = N(E * w + h * (E2 * k3))
    return E * w + (h / 6.0) * (E * k1 + 2.0 * E2 * (k2 + k3) + k4)


RULES = {  # scheme -> (its coefficients from (h, nu, lap), one step (w, f_hat, h, coefficients, advection))
    "heun": (_cn, _heun),
    "euler": (_cn, _euler),
    "ifrk4": (_integrating_factor, _ifrk4),
}


def _advection(ops, shape):
    ikx, iky, inv_lap, mask = (ops[k] for k in ("ikx", "iky", "inv_lap", "dealias"))

    def advection(w):
        psi = w * inv_lap
        q = jnp.fft.irfft2(jnp.stack([iky * psi, -ikx * psi, ikx * w, iky * w]), s=shape)
        return mask * jnp.fft.rfft2(q[0] * q[2] + q[1] * q[3])

    return advection


def cfl_steps(w_hat, ops, interval, dt, cfl):
    r"""Steps over ``interval`` for each sample of ``w_hat`` (``(..., s, s//2 + 1)``): the fewest of length at
    most ``dt`` and at most :math:`C/(\kappa_{max}(\max|u| + \max|v|))` (``cfl`` = C; :math:`\kappa_{max}`
    the largest wavenumber the dealiasing keeps), and the step :math:`h = \text{interval}/n`."""
    s = w_hat.shape[-2]
    psi = w_hat * ops["inv_lap"]
    uv = jnp.fft.irfft2(jnp.stack([ops["iky"] * psi, -ops["ikx"] * psi]), s=(s, s))
    speed = jnp.abs(uv).max(axis=(-2, -1)).sum(axis=0)
    kmax = 2.0 * math.pi * (s // 3)
    h = cfl / jnp.maximum(kmax * speed, cfl / dt)  # at most dt (at rest: dt)
    n = jnp.maximum(jnp.ceil(interval / h - 1e-9), 1.0)
    return n.astype(jnp.int32), interval / n


def _advance(scheme, ops, nu, size):
    """``advance(w, f_hat, n, h)``: ``n`` steps of ``h`` of ``scheme``."""
    coefficients, step = RULES[scheme]
    advection = _advection(ops, (size, size))

    def advance(w, f_hat, n, h):
        coeffs = coefficients(h, nu, ops["lap"])
        return jax.lax.fori_loop(0, n, lambda _, w: step(w, f_hat, h, coeffs, advection), w)

    return advance


@partial(jax.jit, static_argnames=("size", "records", "scheme"), compiler_options=MARCHING)
def _integrate(w_hat, f_hat, ops, nu, h, steps, size, records, scheme):
    """Fixed steps: ``steps`` of ``h`` between records."""
    advance = _advance(scheme, ops, nu, size)

    def record(w, _):
        w = advance(w, f_hat, steps, h)
        return w, jnp.fft.irfft2(w, s=(size, size))

    _, snaps = jax.lax.scan(record, w_hat, None, length=records)
    return jnp.moveaxis(snaps, 0, -1)


@partial(jax.jit, static_argnames=("size", "records", "scheme"), compiler_options=MARCHING)
def _integrate_cfl(w_hat, f_hat, ops, nu, interval, dt, cfl, size, records, scheme):
    """Steps chosen per sample and record interval by :func:`cfl_steps`; also the number of steps taken."""
    advance = _advance(scheme, ops, nu, size)

    def trajectory(w, f_hat):
        def record(w, _):
            n, h = cfl_steps(w, ops, interval, dt, cfl)
            w = advance(w, f_hat, n, h)
            return w, (jnp.fft.irfft2(w, s=(size, size)), n)

        return jax.lax.scan(record, w, None, length=records)[1]

    snaps, steps = jax.vmap(trajectory)(w_hat, jnp.broadcast_to(f_hat, w_hat.shape))
    return jnp.moveaxis(snaps, 1, -1), steps


def solve(w0: np.ndarray, f: np.ndarray | None = None, *, nu: float = 1e-3, T: float = 1.0, dt: float = 1e-3,
          record_steps: int = 1, scheme: str = "heun", cfl: float | None = None) -> np.ndarray:
    r"""Vorticity from ``w0`` of shape ``(n, s, s)`` (``s`` even) with forcing ``f`` (``(s, s)`` or
    ``(n, s, s)``; None: 0) at :math:`t_m = mT/\text{record\_steps}`, :math:`m = 1..\text{record\_steps}`:
    shape ``(n, s, s, record_steps)``. Computed in ``w0``'s precision (float64 by default).

    ``cfl`` None: steps of ``dt``, shortened where needed so that the records fall on steps. A number: each
    sample's steps between two records are the fewest of length at most ``dt`` and at most ``cfl`` over
    :math:`\kappa_{max}(\max|u| + \max|v|)` at the start of the interval (:func:`cfl_steps`)."""
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
        real = partial(jnp.asarray, dtype=dtype)
        if cfl is None:
            out = _integrate(w_hat, f_hat, ops, real(nu), real(h), steps, s, record_steps, scheme)
        else:
            out, _ = _integrate_cfl(w_hat, f_hat, ops, real(nu), real(T / record_steps), real(dt), real(cfl), s,
                                    record_steps, scheme)
        return np.asarray(out)


def generate(n_samples: int, resolution: int, seed: int, progress=None, *, r: int = 1, nu: float = 1e-3,
             T: float = 50.0, dt: float = 1e-3, record_steps: int | None = None, scheme: str = "heun",
             cfl: float | None = None, alpha: float = 2.5, tau: float = 7.0, sigma: float | None = None,
             forcing_amplitude: float = 0.1, batch_size: int = 20, dtype: str = "float64") -> dict[str, np.ndarray]:
    r"""``n_samples`` vorticity trajectories on the periodic ``resolution``² grid, solved on
    ``(r * resolution)``² (the paper: 256² for 64², ``r = 4``) and subsampled.

    :math:`w_0 \sim N(0, \sigma^2(-\Delta + \tau^2 I)^{-\alpha})`, :math:`\sigma` by default
    :math:`\tau^{(2\alpha - 2)/2}` (the paper's code). ``record_steps`` snapshots (default: one per time unit,
    ``round(T)``). Returns ``{"a": (n, s, s) w0, "w": (n, s, s, record_steps) w at "t", "t":
    (record_steps,), "f": (s, s) forcing, "x": (s,)}``. Samples are solved ``batch_size`` at a time;
    ``progress(k)`` is called with the number of samples just finished after each batch. ``dt``, ``scheme``,
    ``cfl``: the time stepping (:func:`solve`); a solution that is not finite everywhere (a step too long for
    its stability) raises :class:`Unstable`.
    """
    fine = resolution * r
    if fine % 2:
        raise ValueError(f"the solver grid r * resolution = {fine} must be even")
    for key, value, ok, wanted in [("scheme", scheme, scheme in SCHEMES, f"one of {list(SCHEMES)}"),
                                   ("dt", dt, dt > 0, "a step > 0"),
                                   ("cfl", cfl, cfl is None or cfl > 0, "a Courant number > 0, or null")]:
        if not ok:
            raise UserError(f"vorticity: params.{key} must be {wanted}, got {value!r}")
    record_steps = max(1, round(T)) if record_steps is None else record_steps
    sigma = tau ** (alpha - 1.0) if sigma is None else sigma
    f = forcing(fine, forcing_amplitude)
    rngs = sample_rngs(seed, n_samples)
    a = np.empty((n_samples, resolution, resolution))
    w = np.empty((n_samples, resolution, resolution, record_steps))
    for start in range(0, n_samples, batch_size):
        batch = rngs[start:start + batch_size]
        w0 = np.concatenate([periodic_grf(g, 1, fine, 2, alpha=alpha, tau=tau, sigma=sigma) for g in batch])
        sol = solve(w0.astype(dtype), f, nu=nu, T=T, dt=dt, record_steps=record_steps, scheme=scheme, cfl=cfl)
        if not np.isfinite(sol).all():
            raise Unstable(f"vorticity: the {scheme} solve on {fine}² blew up (values not finite) with dt = {dt}"
                           + (f", cfl = {cfl}" if cfl is not None else "") + "; take a shorter step (params.dt"
                           + (" or params.cfl)" if cfl is not None else ", or params.cfl for steps that follow the "
                              "flow's speed)"))
        a[start:start + len(batch)] = w0[:, ::r, ::r]
        w[start:start + len(batch)] = sol[:, ::r, ::r]
        if progress is not None:
            progress(len(batch))
    return {"a": a, "w": w, "t": T * np.arange(1, record_steps + 1) / record_steps, "f": f[::r, ::r],
            "x": np.arange(resolution) / resolution}
