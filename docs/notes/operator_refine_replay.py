"""Issue 72: the rules for which refined iterate to keep, replayed on records of ``operator_refine_schedule.py``
(the first ``STEPS`` steps of them, ``every`` apart): per kind the mean true rel-L2(w) kept (and the largest moment's
where recorded), the inputs made worse (by more than 0.1 %), inputs left as trained below ``FLOOR`` times the flag
threshold ``THRESHOLD``. ``python operator_refine_replay.py RECORDS.npz THRESHOLD [STEPS]``."""
import sys

import numpy as np

from sciml.solvers.fno import estimate

r = np.load(sys.argv[1])
threshold = float(sys.argv[2])
every = int(r["every"])
last = int(sys.argv[3]) // every + 1 if len(sys.argv) > 3 else r["w"].shape[1]
est, loss, w, kinds = r["est"][:, :last], r["loss"][:, :last], r["w"][:, :last], r["kinds"]
moments = r["moments"] if r["moments"].size else None


def rule_estimate_fall(e, l):  # the default until now: estimate at most 0.4 x, or a trained energy >= 0; lowest energy
    ok = (e <= estimate.FACTOR * e[0]) | (l[0] >= 0)
    ok[0] = True
    return int(np.argmin(np.where(ok, l, np.inf)))


def rule_energy(e, l):  # the lowest loss of all (the trained answer if none is lower)
    return int(np.argmin(l))


def rule_energy_not_above(e, l):  # the lowest loss among iterates whose estimate is not above the trained one's
    ok = e <= e[0]
    return int(np.argmin(np.where(ok, l, np.inf)))


def rule_last(e, l):
    return len(e) - 1


RULES = {"estimate 0.4x or energy>=0 (old)": rule_estimate_fall, "lowest energy": rule_energy,
         "lowest energy, estimate not above": rule_energy_not_above, "last": rule_last}
floor = estimate.FLOOR * threshold
names = list(dict.fromkeys(kinds.tolist()))
print(f"{len(w)} inputs, {(last - 1) * every} steps; trained mean {w[:, 0].mean():.4g}; below the floor "
      f"{floor:.4g}: {int(np.sum(est[:, 0] < floor))}")
for name, rule in RULES.items():
    for use_floor in (True, False):
        kept = np.array([0 if (use_floor and e[0] < floor) else rule(e, l) for e, l in zip(est, loss)])
        got = w[np.arange(len(w)), kept]
        worse = np.flatnonzero(got > w[:, 0] * (1 + 1e-3))
        cells = []
        for k in names:
            sel = kinds == k
            cell = f"{k} {got[sel].mean():.4f}"
            if moments is not None:
                m = moments[np.arange(len(w)), kept].max(axis=1)
                cell += f" ({m[sel].mean():.3f})"
            cells.append(cell)
        print(f"{name}{', floor' if use_floor else ''}: mean {got.mean():.4g}, worse {len(worse)} "
              f"[{', '.join(f'#{i} {w[i, 0]:.4g}->{got[i]:.4g}' for i in worse[:6])}]; " + "; ".join(cells))
