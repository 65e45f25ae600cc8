"""A fixed workload timed right before and after each benchmark run, so that speeds are checked as ratios.

Machines of one class differ 2–3× in speed and are shared, so a steps/s recorded on one day says little about
another day's machine. The suite runner therefore times this workload in its own process right before and
after every run it starts, and divides the run's speed by the workload's rate (the geometric mean of the two
measurements): ``steps_per_calib`` = training steps per CPU second ÷ calibration runs per CPU second, a number
of training steps per calibration run that does not depend on how fast the machine is. It is this ratio that
a baseline stores and ``--check`` compares; absolute times stay in the report.

Both sides are timed in **CPU seconds of their own process** (``time.process_time``: every thread's user and
system time), not wall seconds. Wall time counts the moments another process holds the cores; on a shared
machine whose load comes and goes, the calibration (before and after) and the run (in between) meet
different loads. Measured on the 2-core CI-class machine while other test suites came and went: a short plate
PINN's steps per wall second over the wall-clock calibration spread 1.9× across three runs (0.030–0.056),
the same over CPU seconds 1.16× (0.044–0.051), and the nested-autodiff step still read 3.0× slower. A change
that makes a step do more work shows in CPU time as in wall time.

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
from collections.abc import Callable

import numpy as np

_PARTS: dict[str, Callable[[], None]] = {}
# CPU seconds of one measurement: eight measurements in a row on a quiet core read rates with a coefficient of
# variation of 0.3 % at 0.5 s and 0.7 % at 1 s (2026-12-05), far below the 10-25 % that a run's own speed moves
# between runs; 1 s before, about 0.8 s of the wall of every suite entry beside its run
SECONDS = 0.5


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
    """How many calls of ``part`` take about ``seconds`` of CPU time."""
    t0 = time.process_time()
    part()
    once = max(time.process_time() - t0, 1e-6)
    return max(1, int(seconds / once))


def measure(seconds: float = SECONDS, rounds: int = 5) -> dict:
    """Time the workload for about ``seconds`` of CPU time: ``{"rate": runs per CPU second, "parts": {part:
    calls per CPU second}, "wall_rate": runs per wall second}``.

    Each part is timed ``rounds`` times, the parts interleaved so that a change of load meets them all; a
    part's rate is the inverse of its median CPU time per call."""
    parts = _build()
    share = seconds / (rounds * len(parts))
    repeats = {name: _repeats(part, share) for name, part in parts.items()}
    cpu: dict[str, list[float]] = {name: [] for name in parts}
    wall: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(rounds):
        for name, part in parts.items():
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(repeats[name]):
                part()
            cpu[name].append((time.process_time() - c0) / repeats[name])
            wall[name].append((time.perf_counter() - t0) / repeats[name])
    rates = {name: 1.0 / float(np.median(t)) for name, t in cpu.items()}
    return {"rate": geometric_mean(rates.values()), "parts": rates,
            "wall_rate": geometric_mean(1.0 / float(np.median(t)) for t in wall.values())}


def geometric_mean(values) -> float:
    values = list(values)
    return float(math.exp(sum(math.log(v) for v in values) / len(values)))


def around(run: Callable[[], dict], seconds: float = SECONDS) -> dict:
    """``run()`` with the workload timed right before and after it. A result with ``steps_per_cpu_s`` (training
    steps per CPU second of the run's process) gains ``steps_per_calib`` (that ÷ the geometric mean of the two
    calibration rates); every result gains ``calibration`` (both rates, and their wall-clock counterparts)."""
    before = measure(seconds)
    result = run()
    after = measure(seconds)
    rate = geometric_mean([before["rate"], after["rate"]])
    result["calibration"] = {"before": before["rate"], "after": after["rate"], "rate": rate,
                             "wall_rate": geometric_mean([before["wall_rate"], after["wall_rate"]])}
    if result.get("status") == "ok" and result.get("steps_per_cpu_s"):
        result["steps_per_calib"] = result["steps_per_cpu_s"] / rate
    return result
