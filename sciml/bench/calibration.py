"""A fixed workload timed right before and after each benchmark run, so that speeds are checked as ratios.

Machines of one class differ 2–3× in speed and are shared, so a steps/s recorded on one day says little about
another day's machine. The suite runner therefore times this workload in its own process right before and
after every run it starts, and divides the run's steps/s by the workload's rate (the geometric mean of the
two measurements): ``steps_per_calib`` = steps/s ÷ calibration runs/s, a number of training steps per
calibration run that does not depend on how fast or how busy the machine is, as long as the run and the
workload are slowed alike. It is this ratio that a baseline stores and ``--check`` compares; absolute times
stay in the report.

The workload mixes what the suites' entries spend their time on, each part jitted once and timed in
interleaved rounds (median per part; the rate is the geometric mean of the parts' rates):

- ``mlp_grad``: the gradient of a tanh MLP 2 → 3×32 → 1 on 1 000 points (many small kernels, as a PINN step);
- ``spectral``: a batched Fourier layer, rfft2 → 8×8 modes × (16 → 16 channels) → irfft2 on 8×16×32²
  (as an FNO step);
- ``matmul``: one 512 × 512 float32 matrix product (the dense arithmetic of both).
"""
from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

_PARTS: dict[str, Callable[[], None]] = {}


def _build() -> dict[str, Callable[[], None]]:
    """The workload's jitted parts, each a call that blocks until its result is ready (built once)."""
    if _PARTS:
        return _PARTS
    import jax
    import jax.numpy as jnp

    key = jax.random.PRNGKey(0)
    keys = jax.random.split(key, 8)
    sizes = [2, 32, 32, 32, 1]
    weights = [jax.random.normal(k, (a, b), jnp.float32) / math.sqrt(a)
               for k, a, b in zip(keys, sizes[:-1], sizes[1:])]
    points = jax.random.uniform(keys[5], (1000, 2), jnp.float32)

    def loss(ws, x):
        h = x
        for w in ws[:-1]:
            h = jnp.tanh(h @ w)
        return jnp.mean((h @ ws[-1]) ** 2)

    mlp_grad = jax.jit(jax.grad(loss))
    fields = jax.random.normal(keys[6], (8, 16, 32, 32), jnp.float32)
    modes = (jax.random.normal(keys[7], (16, 16, 8, 8), jnp.float32) / 16).astype(jnp.complex64)

    @jax.jit
    def spectral(x):
        xh = jnp.fft.rfft2(x)[..., :8, :8]
        return jnp.fft.irfft2(jnp.einsum("bixy,ioxy->boxy", xh, modes), s=x.shape[-2:])

    a = jax.random.normal(keys[4], (512, 512), jnp.float32)
    matmul = jax.jit(lambda m: m @ m)
    _PARTS.update({
        "mlp_grad": lambda: jax.block_until_ready(mlp_grad(weights, points)),
        "spectral": lambda: jax.block_until_ready(spectral(fields)),
        "matmul": lambda: jax.block_until_ready(matmul(a)),
    })
    for part in _PARTS.values():  # compile and warm up
        part()
        part()
    return _PARTS


def _repeats(part: Callable[[], None], seconds: float) -> int:
    """How many calls of ``part`` take about ``seconds``."""
    t0 = time.perf_counter()
    part()
    once = max(time.perf_counter() - t0, 1e-6)
    return max(1, int(seconds / once))


def measure(seconds: float = 1.0, rounds: int = 5) -> dict:
    """Time the workload for about ``seconds``: ``{"rate": runs/s, "parts": {part: calls/s}}``.

    Each part is timed ``rounds`` times, the parts interleaved so that a change of load meets them all; a
    part's rate is the inverse of its median time per call."""
    parts = _build()
    share = seconds / (rounds * len(parts))
    repeats = {name: _repeats(part, share) for name, part in parts.items()}
    times: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(rounds):
        for name, part in parts.items():
            t0 = time.perf_counter()
            for _ in range(repeats[name]):
                part()
            times[name].append((time.perf_counter() - t0) / repeats[name])
    rates = {name: 1.0 / float(np.median(t)) for name, t in times.items()}
    return {"rate": geometric_mean(rates.values()), "parts": rates}


def geometric_mean(values) -> float:
    values = list(values)
    return float(math.exp(sum(math.log(v) for v in values) / len(values)))


def around(run: Callable[[], dict], seconds: float = 1.0) -> dict:
    """``run()`` with the workload timed right before and after it; a result with steps/s gains
    ``steps_per_calib`` (steps/s ÷ the geometric mean of the two rates) and ``calibration`` (both rates)."""
    before = measure(seconds)["rate"]
    result = run()
    after = measure(seconds)["rate"]
    rate = geometric_mean([before, after])
    result["calibration"] = {"before": before, "after": after, "rate": rate}
    if result.get("status") == "ok" and result.get("steps_per_s"):
        result["steps_per_calib"] = result["steps_per_s"] / rate
    return result
