"""Issue 72: the plate operator's error estimate (physics.Plate.estimate) on in- and out-of-distribution loads
against Navier's series, and a one-step correction by the same inverse: ``python operator_estimate_study.py RUN``
for a run of plate_operator_quick (docs/notes/operator_estimate.md)."""
import sys, numpy as np, jax, jax.numpy as jnp
from scipy.stats import spearmanr
from sciml import cases
from sciml.solvers.fno.export import _trained
from sciml.solvers.fno.physics import Plate, _sine_solver
from sciml.equations.plate_reference import random_loads as RL

run = sys.argv[1]
cfg = cases.load(f"{run}/config.yaml").config
_, _, op, params, stats = _trained(cfg, run)
TERMS = 128

def coeffs_uniform():
    m = np.arange(1, TERMS + 1)
    odd = (m % 2 == 1)
    c = np.where(odd, 4 / (np.pi * m), 0.0)
    return np.outer(c, c)

def coeffs_x():  # hydrostatic q = x
    m = np.arange(1, TERMS + 1)
    cx = 2 * (-1.0) ** (m + 1) / (np.pi * m)
    cy = np.where(m % 2 == 1, 4 / (np.pi * m), 0.0)
    return np.outer(cx, cy)

def mode(a, b):
    c = np.zeros((TERMS, TERMS)); c[a - 1, b - 1] = 1.0; return c

def q_on_grid(c, x):
    s = np.sin(np.pi * np.outer(x, np.arange(1, TERMS + 1)))
    return s @ c @ s.T

def loads(s, seed=1):
    x = np.linspace(0, 1, s)
    rng = np.random.default_rng(seed)
    out = []
    for i in range(12):
        c, f = RL.grf(rng, TERMS); X, Y = np.meshgrid(x, x, indexing="ij"); out.append(("grf", c, f(X, Y)))
    for w in [(0.3, 0.4), (0.15, 0.25), (0.05, 0.1)]:
        for i in range(3):
            c, f = RL.patches(rng, TERMS, patches=1, patch_width=w, force=1.0); X, Y = np.meshgrid(x, x, indexing="ij")
            out.append((f"patch{w[0]}", c, f(X, Y)))
    for name, c in [("uniform", coeffs_uniform()), ("hydrostatic", coeffs_x()), ("mode32", mode(3, 2)),
                    ("mode15", mode(1, 5)), ("mode11", mode(1, 1)), ("mode22", mode(2, 2))]:
        out.append((name, c, q_on_grid(c, x)))
    return x, out

def study(s):
    x, items = loads(s)
    physics = Plate.of(cfg.data.params, s)
    q = np.stack([it[2] for it in items])[..., None].astype(np.float32)
    ref = np.stack([RL.solution(it[1], x)["w"] for it in items])
    xin = jnp.asarray(q)
    pred = np.asarray(op.predict(params, stats, xin))[..., 0]
    field = op.field(params, stats, xin)
    r = np.asarray(physics.residual(field, xin)).T.reshape(len(items), s, s)  # (B, s, s)
    sine, lam, _ = _sine_solver(s - 2, 1.0)
    ri = r[:, 1:-1, 1:-1]
    delta = np.einsum("ij,bjk,kl->bil", sine, np.einsum("ij,bjk,kl->bil", sine, ri, sine) / (physics.D * lam ** 2), sine)
    est = np.asarray(physics.estimate(field, xin))  # ‖δ‖ / ‖w - δ‖
    true = np.linalg.norm((pred - ref).reshape(len(items), -1), axis=1) / np.linalg.norm(ref.reshape(len(items), -1), axis=1)
    corrected = pred.copy(); corrected[:, 1:-1, 1:-1] -= delta
    after = np.linalg.norm((corrected - ref).reshape(len(items), -1), axis=1) / np.linalg.norm(ref.reshape(len(items), -1), axis=1)
    print(f"s = {s}: Spearman {spearmanr(est, true).correlation:.3f}")
    for (name, _, _), t, e, a in zip(items, true, est, after):
        print(f"  {name:12s} true {t:9.3g}  estimate {e:9.3g}  ratio {e / t:6.2f}   one corrected step {a:9.3g}")

if __name__ == "__main__":
    for s in (17, 33):
        study(s)
