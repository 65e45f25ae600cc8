"""Seconds per Adam step of a plate PINN, per autodiff mode, measured in one process.

Defaults are PaddleScience's ``biharmonic2d`` sizes: 8000 interior points, 125 points per edge and
condition, MLP 5 x 20 tanh, float32. The ratio column compares each mode with the first one (the engine),
so machine load affects both alike. Run: ``sciml bench plate-step`` or ``python -m sciml.bench.plate_step``.
"""
from __future__ import annotations

import argparse
import statistics
import time

import jax
import numpy as np


def measure(case_path: str, mode: str, overrides: list[str], steps: int, repeats: int) -> dict:
    from sciml import cases

    case = cases.load(case_path, [*overrides, f"autodiff.mode={mode}"])
    cfg = case.config
    with jax.enable_x64(cfg.dtype == "float64"):
        return _time_steps(cfg, mode, steps, repeats)


def _time_steps(cfg, mode: str, steps: int, repeats: int) -> dict:
    from sciml.solvers.pinn import assemble, optim

    problem = assemble(cfg)
    tx, _ = optim.adam(cfg.training.adam)
    key = jax.random.PRNGKey(cfg.seed)
    state = optim.init_state(problem.init(key), tx, key)
    batch = problem.sample(np.random.default_rng(cfg.seed))
    chunk = optim.adam_chunk(problem.loss, tx, steps)
    t0 = time.perf_counter()
    compiled = chunk.lower(state, batch, steps).compile()
    compile_s = time.perf_counter() - t0
    state, losses = compiled(state, batch, steps)  # warm-up
    jax.block_until_ready(losses)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        state, losses = compiled(state, batch, steps)
        jax.block_until_ready(losses)
        times.append((time.perf_counter() - t0) / steps)
    return {"mode": mode, "s_per_step": statistics.median(times), "compile_s": compile_s,
            "loss": float(np.asarray(losses)[-1])}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="sciml bench plate-step", description=__doc__.splitlines()[0])
    p.add_argument("--case", default="plate", help="a case file or name (default: the shipped plate)")
    p.add_argument("--modes", default="taylor,nested",
                   help="comma-separated autodiff modes; the first is the baseline of the ratios")
    p.add_argument("--interior", type=int, default=8000)
    p.add_argument("--boundary", type=int, default=125)
    p.add_argument("--hidden", default="20,20,20,20,20")
    p.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    p.add_argument("--steps", type=int, default=20, help="steps per timed chunk")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    overrides = [f"sampling.interior={args.interior}", f"sampling.boundary={args.boundary}",
                 f"model.hidden=[{args.hidden}]", f"dtype={args.dtype}"]
    rows = [measure(args.case, m, overrides, args.steps, args.repeats) for m in args.modes.split(",")]
    base = rows[0]["s_per_step"]
    print(f"plate PINN Adam step: {args.case}, {args.interior} interior + {args.boundary}/edge points, "
          f"MLP [{args.hidden}] tanh, {args.dtype}, {jax.devices()[0].device_kind}")
    print(f"{'mode':<10} {'s/step':>10} {'ratio':>8} {'compile s':>10}")
    for r in rows:
        print(f"{r['mode']:<10} {r['s_per_step']:>10.4f} {r['s_per_step'] / base:>8.2f} {r['compile_s']:>10.2f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
