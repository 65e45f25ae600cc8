"""An operator that knows when it is wrong (issue 72): each prediction's error estimate by its physics, the
estimate's calibration on the test set, and test-time refinement by the physics loss.

- :func:`estimator`: ``(params, stats, x) -> (prediction, per-sample estimate)``, the physics' estimate of the
  relative L2 error of the output's first channel (:meth:`.physics.Plate.estimate`, :meth:`.physics.Darcy.estimate`);
- :func:`calibrate`: from the test set's estimates and true errors, the quantiles of ``true / estimate`` and the
  flag threshold ``target / max(true / estimate)``: every test sample whose true error exceeds ``target``
  (10 %) has an estimate above it;
- :func:`refine`: one input's prediction improved by Adam on a copy of the operator's weights minimising the
  physics' energy of that input alone (with the run's ``pde`` term where it trains with both; a plate's load work
  that of the band-limited load, :data:`WORK`; on clamped plate edges the energy alone, its bending on a 6× grid:
  :func:`refinement_loss`; instance-wise fine-tuning, Li et al., PINO 2021), from the trained weights, its learning
  rate decaying over the steps (:data:`SCHEDULE`, cosine, to :data:`DECAY` of the first), the estimate evaluated
  every ``every`` steps; it keeps, among the iterates whose estimate fell to at most :data:`FACTOR` (0.4) times the
  trained answer's while their energy fell below the trained answer's by :data:`FALL` (2e-4) of its size at least,
  the one of the lowest energy, that energy's bending on a grid :data:`CHOICE_QUADRATURE` (4)
  times finer (the trained answer if there is none; every iterate is admissible where the trained answer's energy
  is not below 0, no better than a zero field's, and one whose energy fell below the trained answer's by
  :data:`DROP` (a quarter) of its own size), and stops once the kept estimate falls below ``tol``; ``sciml predict
  --refine`` leaves the inputs estimated below :data:`FLOOR` (half) of the flag threshold as trained, except where
  the field correction refines a plate on a grid of 33 points or more, and for Darcy: there every input is refined
  and any fall of the energy admits an iterate (:func:`doors`, :data:`EVERY_INPUT`).

Why the energy chooses among the admissible iterates, not the estimate itself: the energy's decrease is the
energy-norm error's (``Π(w) - Π(w*) = D/2 ‖Δ(w - w*)‖²``), while the estimate, the residual's fourth derivatives
at the grid points, is not controlled by the refinement between them; the smallest estimate kept iterates 1.4-2.4
times worse than the trained answer in true error on two loads of docs/notes/operator_estimate.md, the rule
here none. The admissibility keeps what the energy cannot see: a patch load, discontinuous, sampled on the grid,
whose discrete energy falls while the true error rises (and the estimate with it). Why a clear fall (0.4), and no
refinement of inputs estimated well below the flag: with "not above" 9 of 50 test loads got worse (the small
errors pushed to the discrete energy's floor, three flagged ones whose estimate fell by 2-3 times while their true
error rose), with both rules none (session 43, docs/notes/operator_estimate.md).

Why a trained answer of non-negative energy admits every iterate: ``Π(w) - Π(w*) = D/2 ‖Δ(w - w*)‖²`` and
``Π(w*) = -D/2 ‖Δw*‖²``, so ``Π(w) >= 0 = Π(0)`` is an energy-norm error of 100 % or more from the energy's
minimiser, an answer no better than none. The estimate cannot say so for a point-like load: the field's fourth
derivatives at the grid points are not the load there, and the estimate of an answer 5e-4 off stays at 0.66
(a patch of side 0.05-0.1 given by its work values on 33², docs/notes/operator_estimate.md, 2026-12-04), so the
fall to 0.4 times never comes. No test load of plate_operator_quick's run has a trained energy at or above 0
(the largest -0.017 of -0.02 to -0.36), so in distribution the rule changes nothing. With the ``pde`` term in the
refinement's loss the rule reads that loss, the energy plus a non-negative term: slightly more permissive.

Why the energy's fall by a quarter (:data:`DROP`): ``(Π(w0) - Π(w)) / -Π(w)`` is about the trained answer's squared
energy-norm error less the iterate's, so a fall of a quarter says the trained answer is at least half off in energy
norm by the discrete energy, beyond any of its floors. The mode (1, 5) at 33² needs it: its trained energy is
-0.0010, slightly negative with the band work, and its estimate falls only to 0.39-0.40 times (1.80 to 0.709-0.722)
while the energy falls to -0.0030 (a fall 0.66 of its size) and the true error from 6.8 to 4e-4: by the estimate
alone the rule kept an iterate 0.46 off. The largest fall among the test loads of plate_operator_quick's run, 1500
steps: 0.009 (17²) and 0.022 (33²). Why the choice on a 4× grid: refined long enough, the energy on the 2× grid is
exploited by curvature between its points, as on clamped edges: a point-like patch at 33² went from 0.0023 (500
steps) to 0.198 (1500) while that energy fell (-0.00167 to -0.00448) and the same fields' 4× energy rose to +0.11;
its lowest 4× energy is at 580 steps, 0.0024 off. Why the band work and a decaying rate: the grid's Simpson work
couples a mode ``m`` with ``s - 1 ± m`` (the moments' floor, :func:`.physics.band_limited`), and Adam at a constant
1e-3 diverged between 1500 and 2000 steps (docs/notes/operator_estimate.md, session 50).

Why a fall of 1e-2 of its size is enough for the field correction (:data:`DROPS`; :mod:`.correction`): its energy is
the band-limited load's by Gauss quadrature, which conjugate gradients lower monotonically without exploiting it, so
a fall of ``T`` of its size says the trained answer is about ``√T`` (10 %) off in energy norm from that energy's
minimiser. The clamped study's first medium patch needed it (a fresh clone's full run, 2026-12-05: trained 3.8 %
off in ``w``, 25 % in the moments; its estimate fell only to 0.50 times while the energy fell by 2.4e-2 of its size).
Over the test sets, every input refined to the last iterate: the largest falls 0.0088 (simply supported, 17²),
0.022 (33²) and 0.010 (clamped, 200 loads at 33²), every load with a fall of 1e-2 or more made better, none worse;
at 17² the two made worse had falls of 0.0033 and 0.0041 (docs/notes/operator_estimate.md, session 55). The
weights keep a quarter: their energy on the 2× grid can be exploited between its points.

Why the estimate's fall admits an iterate only where the energy fell too, by :data:`FALL` (2e-4) of its size: the
estimate can fall four-fold while the answer moves away from the truth and the energy hardly moves. On clamped edges
two of the 200 test loads of the full run were made 1.38 and 1.13 times worse so, their energy down by 4.8e-5 and
1.1e-4 of its size; on the simply supported plate at 33², 1000 steps from 1e-2, one of 50 fresh draws 2.2 times
worse, its energy up by 0.7 %. With 2e-4 none is made worse and most gains stay: on clamped edges 29 of the 32 test
loads improved (the three lost, refined to 0.56-0.89 times their error, had falls of 1.3-1.8e-4), on the simply
supported plate at 33² all (29 test loads, 25 fresh draws; the smallest fall 7e-4), at 17² 8 of the 10 test loads
(the two lost had their energy rise) and the 6 fresh draws (the smallest fall 2.2e-4); with 1e-3 only 6 of the 32
clamped ones (docs/notes/operator_estimate.md, session 52).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import numpy as np
import optax

from sciml.errors import UserError

TARGET = 0.10  # the true relative error the flag is for
FACTOR = 0.4  # a refined iterate is kept only if its estimate is at most this share of the trained answer's
DROP = 0.25  # or where its energy fell below the trained answer's by this share of its own size (admissible)
DROPS = {"weights": DROP, "field": 1e-2}  # that share by the refinement's method (the module's docstring)
FALL = 2e-4  # admitted by its estimate's fall only where its energy fell too, by this share of its size (admissible)
REASONS = ("estimate", "zero", "drop")  # why an iterate may replace the trained answer (admitted_by)
FLOOR = 0.5  # inputs estimated below this share of the flag threshold are not refined (operator_estimate.md)
# from which grid a method refines every input of a generator's physics, any fall of its energy admitted (doors)
EVERY_INPUT = {("plate", "field"): 33, ("darcy", "weights"): 0}
WORK = "band"  # a plate refinement's load work (physics.Plate.work): that of the band-limited load, exact for its modes
LR = 1e-3  # the refinement's first learning rate where the caller gives none (predict's lr=None)
SCHEDULE = "cosine"  # a plate refinement's learning rate over its steps (learning_rate; schedule_for)
CHOICE_QUADRATURE = 4  # the kept iterate's choice by the energy, its bending on a grid at least this many times finer
CLAMPED_QUADRATURE = 6  # a refinement's bending energy on clamped edges: on a grid this many times finer (2 trains)
QUANTILES = {"min": 0.0, "q05": 0.05, "median": 0.5, "q95": 0.95, "max": 1.0}


def physics_output(op, physics, params, stats, x):
    """What the physics' terms read (``physics.reads``): the decoded field, or the output on the grid."""
    return op.field(params, stats, x) if physics.reads == "field" else op.predict(params, stats, x)


def estimator(op, physics) -> Callable:
    """``(params, stats, x) -> (prediction, per-sample error estimate)``, jitted, on the grid of
    ``physics.resolution``."""

    @jax.jit
    def run(params, stats, x):
        return op.predict(params, stats, x), physics.estimate(physics_output(op, physics, params, stats, x), x)

    return run


def calibrate(estimate: np.ndarray, true: np.ndarray, target: float = TARGET) -> dict:
    """The calibration of per-sample estimates against true errors (the test set's): ``n``, ``target``, the
    quantiles of ``true / estimate`` (:data:`QUANTILES`), the flag ``threshold = target / max(true / estimate)``
    (a sample of these whose true error exceeds ``target`` has an estimate above it), and the share of the
    samples at or above it (``flagged``)."""
    estimate, true = np.asarray(estimate, float), np.asarray(true, float)
    ratio = true / np.maximum(estimate, np.finfo(float).tiny)
    threshold = target / float(ratio.max())
    return {"n": int(len(true)), "target": target,
            "ratio": {name: float(np.quantile(ratio, q)) for name, q in QUANTILES.items()},
            "threshold": threshold, "flagged": float(np.mean(estimate >= threshold))}


def threshold_for(calibrations: dict, resolution: int) -> float:
    """The flag threshold for inputs on the grid of ``resolution`` points: its calibration's, or the smallest
    of all (the most cautious) for a grid without one. ``calibrations``: ``{str(resolution): calibrate(...)}``."""
    own = calibrations.get(str(resolution))
    return own["threshold"] if own else min(c["threshold"] for c in calibrations.values())


SCHEDULES = ("constant", "cosine")  # the refinement's learning rate over its steps (:func:`learning_rate`)
DECAY = 0.01  # a cosine schedule's last learning rate, as a share of the first


def learning_rate(lr: float, steps: int | None = None, schedule: str = "constant", decay: float = DECAY):
    """The refinement's learning rate: ``lr`` throughout (``constant``), or ``cosine``: from ``lr`` down to ``decay``
    times it at step ``steps`` (:func:`optax.cosine_decay_schedule`; it needs ``steps``). A schedule not of
    :data:`SCHEDULES` is one line."""
    if schedule not in SCHEDULES:
        raise UserError(f"refinement schedule {schedule!r}: one of {', '.join(SCHEDULES)}")
    if schedule == "constant":
        return lr
    if not steps or steps < 1:
        raise UserError(f"a {schedule} refinement schedule needs its number of steps (got {steps})")
    return optax.cosine_decay_schedule(lr, int(steps), alpha=decay)


def _plate(physics) -> bool:
    """Whether ``physics`` is a plate's (it has a load work; Darcy's has none)."""
    return getattr(physics, "work", None) is not None


def schedule_for(physics) -> str:
    """The refinement's default learning-rate schedule for ``physics``: :data:`SCHEDULE` (cosine) for a plate, whose
    refinement it was measured on (docs/notes/operator_estimate.md, session 50), ``constant`` for others (Darcy:
    the cosine's smaller late steps left a contrast of 30 at 0.0104 after 500 steps where the constant rate reached
    0.0044, the same trained run)."""
    return SCHEDULE if _plate(physics) else "constant"


METHODS = ("weights", "field")  # how an answer is refined: fine-tuning the weights, or correcting the decoded field
EVERY = {"weights": 10, "field": 100}  # steps between two estimates where the caller gives none (field: 85 ms each
# at 33²: 15.7 s an input every 10, 7.2 s every 100, over 1000 iterations)


def method(physics, chosen: str | None = None, lr: float | None = None, schedule: str | None = None,
           trained: int | None = None) -> str:
    """The refinement's method for ``physics`` (:data:`METHODS`): ``chosen``, else :func:`default_method`.
    ``field`` (:mod:`.correction`: conjugate gradients on a correction of the decoded field) is a plate's only. A
    method not of :data:`METHODS`, ``field`` for physics without a plate's energy (Darcy's terms read the output on
    the grid), or a learning rate or schedule given to ``field`` (it has neither) is one line."""
    plate = _plate(physics)
    chosen = chosen or default_method(physics, trained, lr, schedule)
    if chosen not in METHODS:
        raise UserError(f"refinement method {chosen!r}: one of {', '.join(METHODS)}")
    if chosen == "field" and not plate:
        raise UserError("refinement method 'field' corrects a plate's decoded field by its energy: this operator's "
                        "physics refines its weights (method 'weights')")
    if chosen == "field" and (lr is not None or schedule is not None):
        raise UserError("a learning rate or schedule is for refinement method 'weights': 'field' solves its "
                        "correction by conjugate gradients")
    return chosen


def default_method(physics, trained: int | None = None, lr: float | None = None,
                   schedule: str | None = None) -> str:
    """The method a refinement takes when none is chosen: ``field`` for a plate on a grid finer than ``trained`` (the
    operator's training grid, ``data.resolution``) with no learning rate or schedule given, else ``weights``. Measured
    on ``plate_operator_quick`` (docs/notes/operator_estimate.md, session 54; 1000 steps): at 33² the field made none of
    its 50 test loads worse (mean 0.0249 → 0.0044) nor of 50 fresh draws of their kind (0.0200 → 0.0046; at 25² none
    either, 0.0281 → 0.0052; 65² not measured), and on 27 loads of other kinds brought every refined one within 1.1e-4
    (session 53); at 17², its training grid, it made one test load 3.3 times worse and two fresh draws 1.1 and 1.3 times
    (a random load given by its values at 17 points, read as work values: the grid's discrete answer further off than
    the operator trained on that grid), where the weights made no test load worse (one fresh draw 1.045 times). On its
    own training grid an operator keeps the weights (``plate_operator_clamped``'s 33² included: there both methods made
    none of its 200 test loads worse, sessions 52-53)."""
    plate = _plate(physics)
    finer = plate and trained is not None and physics.resolution > trained
    return "field" if finer and lr is None and schedule is None else "weights"


def refiner(op, physics, loss: Callable, lr: float, steps: int | None = None,
            schedule: str = "constant") -> tuple[optax.GradientTransformation, Callable]:
    """``(tx, advance)``: Adam of learning rate ``lr`` (over ``steps`` steps as ``schedule`` says,
    :func:`learning_rate`) and ``advance(params, opt, stats, x, n) -> (params, opt)``, jitted, ``n`` of its steps
    on ``loss(physics output, x)`` (:func:`physics_output`) of the inputs ``x``."""
    tx = optax.adam(learning_rate(lr, steps, schedule))
    grad = jax.grad(lambda p, stats, x: loss(physics_output(op, physics, p, stats, x), x))

    @jax.jit
    def advance(params, opt, stats, x, n):
        def body(_, carry):
            p, o = carry
            updates, o = tx.update(grad(p, stats, x), o, p)
            return optax.apply_updates(p, updates), o

        return jax.lax.fori_loop(0, n, body, (params, opt))

    return tx, advance


def refinement_loss(physics, terms, quadrature: int = 0) -> Callable:
    """``(physics output, x) -> the loss a refinement minimises``: the physics' energy, plus its ``pde`` term at the
    run's weight relative to the energy's where the run trains with both (``terms``: ``training.terms``); on a plate's
    clamped edges the energy alone, its bending part on a grid :data:`CLAMPED_QUADRATURE` (6) times finer than the
    inputs' instead of the training's 2 (if its own is coarser). Why: the clamped conditions hold exactly among
    the operator's fields (``model.vanish_on_edges``: the edge factor squared; the ``boundary`` term is 0 to the
    digit), but refined by the energy on the 2× grid a uniform load ran from 2.2 % to 140 % off in 400 steps while
    that energy fell (-0.075 to -0.19) and the same fields' energy on the 4× and 8× grids rose to +2.0 and +1.8: the
    field's curvature between the 2× points, which that quadrature does not see. On the 4× grid the same load went to
    0.03 % in 200 steps, but its moment ``M_x`` 6.1 % off, the clamping moment on the edges loose (the last cell's
    curvature): on the 6× grid 1.5 % (8×: 0.9 %, about twice the time); with the run's ``pde`` (0.01), the old cure,
    the higher modes stayed 2-6 % off (docs/notes/operator_estimate.md, 2026-12-04). A plate's load work is the
    band-limited load's (:data:`WORK`, ``Plate.work``); ``quadrature``: the bending on a grid at least this many times
    finer (the kept iterate's choice: :data:`CHOICE_QUADRATURE`)."""
    if _plate(physics):  # a plate: the band-limited load's work (WORK)
        physics = dataclasses.replace(physics, work=WORK, refine=max(physics.refine, quadrature))
    if getattr(physics, "edges", None) == "clamped":  # the energy alone, its bending on the finer grid
        return dataclasses.replace(physics, refine=max(physics.refine, CLAMPED_QUADRATURE)).energy
    weight = terms.pde / terms.energy if terms.energy and terms.pde else 0.0
    if not weight:
        return physics.energy
    return lambda output, x: physics.energy(output, x) + weight * physics.pde(output, x)


def objective(op, physics, loss: Callable) -> Callable:
    """``(params, stats, x) -> loss(physics output, x)``, jitted: the refinement's loss of the weights ``params``
    (:func:`refiner`'s), by which :func:`refine` may choose among its iterates."""
    return jax.jit(lambda params, stats, x: loss(physics_output(op, physics, params, stats, x), x))


def admitted_by(guess: float, first: float, factor: float = FACTOR, energy_first: float | None = None,
                energy: float | None = None, drop: float = DROP, fall: float | None = FALL) -> list[str]:
    """The reasons (:data:`REASONS`) by which a refined iterate of estimate ``guess`` and energy ``energy`` may
    replace the trained answer of estimate ``first`` and energy ``energy_first`` (either energy None: not known):
    ``estimate``, its estimate at most ``factor`` times the trained one's (``factor`` 1: not above it) and, where
    both energies are known, its energy below the trained answer's by at least ``fall`` times its size (None: no
    such condition); ``zero``, the trained answer's energy not below 0, a zero field's; ``drop``, its energy
    negative and below the trained answer's by at least ``drop`` times its size (the module's docstring)."""
    fell, size = (None, 0.0) if energy_first is None or energy is None else (energy_first - energy, abs(energy))
    held = {"estimate": guess <= factor * first and (fell is None or fall is None or fell >= fall * size),
            "zero": energy_first is not None and energy_first >= 0.0,
            "drop": fell is not None and energy is not None and energy < 0.0 and fell >= drop * size}
    return [reason for reason in REASONS if held[reason]]


def admissible(guess: float, first: float, factor: float = FACTOR, energy_first: float | None = None,
               energy: float | None = None, drop: float = DROP, fall: float | None = FALL) -> bool:
    """Whether a refined iterate may replace the trained answer: by any reason of :func:`admitted_by`."""
    return bool(admitted_by(guess, first, factor, energy_first, energy, drop, fall))


def doors(generator: str, method: str, resolution: int, threshold: float) -> dict:
    """:func:`refine`'s ``floor`` and ``drop`` for ``method`` (:data:`METHODS`) on the physics of ``generator``
    (``data.generator``) on the grid of ``resolution`` points with the flag ``threshold``: on grids of at least
    :data:`EVERY_INPUT` points for the pair every input refined and every iterate whose energy fell admitted (both
    0), else the inputs estimated at or above :data:`FLOOR` of the threshold and the method's share :data:`DROPS`.

    Why a plate's field on 33² and finer: each test load refined to its last iterate there was made better, all 50
    of ``plate_operator_quick``'s (0.0249 → 0.00082) and all 200 of ``plate_operator_clamped``'s (0.0100 → 0.00091),
    the loads estimated below half the flag among them (21: 0.0088 → 0.00026; 153: 0.0060 → 0.00062), which the
    doors otherwise leave as trained, two of them just over 1e-2 on the clamped plate; at 65², 20 of the clamped
    test loads, each better (0.0096 → 5.1e-6, 36 s an input); at 17², ``plate_operator_quick``'s training grid, two
    of its 50 test loads were made worse so (falls of 3.3e-3 and 4.1e-3 of the energy's size). Why Darcy's weights
    on every grid: its energy is the five-point scheme's on the grid (:class:`.physics.Darcy`), whose minimiser is
    that grid's discrete answer; every one of ``darcy_pino_quick``'s 50 test inputs was made better so, at 41², its
    data's solver grid (0.0408 → 0.0012, the doors before 0.0103, 17 inputs left as trained up to 3.9 %), and at
    21², its training grid (0.0396 → 0.0200, that grid's own discretisation error; docs/notes/operator_estimate.md,
    sessions 55 and 56)."""
    if resolution >= EVERY_INPUT.get((generator, method), np.inf):
        return {"floor": 0.0, "drop": 0.0}
    return {"floor": FLOOR * threshold, "drop": DROPS[method]}


def refine(estimate: Callable, tx, advance: Callable, params, stats, x, steps: int, tol: float | None = None,
           every: int = 10, energy: Callable | None = None, factor: float = FACTOR, floor: float = 0.0,
           fall: float | None = FALL, drop: float = DROP) -> dict:
    """One input ``x (1, s..., c)`` refined (the module's docstring): up to ``steps`` steps of ``advance``
    (:func:`refiner`), ``every`` at a time, each time the ``estimate`` (:func:`estimator`) of the new weights. Among
    the iterates whose estimate is at most ``factor`` times the trained weights' (:func:`admissible`; with
    ``energy`` (:func:`objective`) only those whose energy fell below the trained weights' by ``fall`` of its size
    (:data:`FALL`; None: no such condition), and every iterate where the trained weights' energy is not below 0 or
    its own fell by ``drop`` (:data:`DROPS`) of its size below it), it keeps the
    one of the smallest estimate, or with ``energy`` of the smallest energy; the trained weights if there is none.
    Stops early once the kept weights' estimate is below ``tol``; an input estimated below ``floor`` is returned as
    trained (no step). ``{"prediction", "estimate" (the kept weights'), "estimate_before", "energy_before" (the
    trained weights' energy, NaN without ``energy``), "energy" (the kept weights'), "steps" (taken), "params" (the
    kept weights)}``."""
    prediction, before = estimate(params, stats, x)
    first = float(before[0])
    start = None if energy is None else float(energy(params, stats, x))

    def rank(p, guess: float) -> float:  # smaller is better
        own = None if energy is None else float(energy(p, stats, x))
        if not admissible(guess, first, factor, start, own, drop=drop, fall=fall):
            return np.inf
        return guess if own is None else own

    kept, best, taken = (prediction, before, params), rank(params, first), 0
    kept_energy = start
    p, opt = params, tx.init(params)
    while taken < steps and first >= floor and (tol is None or float(kept[1][0]) >= tol):
        n = min(every, steps - taken)
        p, opt = advance(p, opt, stats, x, n)
        taken += n
        now = estimate(p, stats, x)
        score = rank(p, float(now[1][0]))
        if score < best:
            best, kept = score, (*now, p)
            kept_energy = score if energy is not None else None
    return {"prediction": np.asarray(kept[0]), "estimate": np.asarray(kept[1]), "estimate_before": np.asarray(before),
            "energy_before": np.array([np.nan if start is None else start]),
            "energy": np.array([np.nan if kept_energy is None else kept_energy]), "steps": np.array([taken]),
            "params": kept[2]}
