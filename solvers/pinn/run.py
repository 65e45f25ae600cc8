"""The PINN driver: train a case, write its run folder, return its summary.

The run skeleton (run folder, metrics rows, checkpoints, the NaN stop, resume, stopping on a signal, the
summary) is :mod:`sciml.loop`'s; this module gives what is the PINN's. Phases run in order (Adam, then
L-BFGS), each as jitted chunks of ``training.log_every`` steps (the loop's chunks; a new phase starts a fresh
optimizer state from the parameters). A metrics row holds the loss, each term, the adaptive weights and the
learning rate; ``latest`` is due every ``training.checkpoint_every`` steps and at the end of each phase. After
an Adam chunk, when due: new collocation points (``sampling.resample_every``) or residual-based refinement
(``sampling.adaptive``, :mod:`.features.refinement`; the chunk compiles again for the larger batch).

A run is a plan of stages (:mod:`.stages`: one for a plain case, one per value of a curriculum, one per time
window); the phases run once per stage, each stage with its own problem, from the parameters (and adaptive
weights) the last one ended with; the step count runs on, and checkpoints carry the stage, so ``--resume``
continues the stage it stopped in.

- A curriculum (``training.curriculum``, :mod:`.features.curriculum`) keeps one set of points (refined points carry
  over). The stage's value of the curriculum's number rides in the batch (``constants``), so the stages' chunks
  are one program: a later stage's phase with an earlier one's settings runs the chunk that one compiled; the
  stage's problem takes it as an argument of its predictions and residual score too (``Problem.constants``), whose
  programs the compile cache then gives every later stage (a three-stage cavity: three compiles fewer, 3.9 s). Rows
  carry the stage's value (a column named as the number); the row that ends a stage also its ``residual_rms``
  and the equation's check metrics (Ghia's errors), which the summary lists as ``stages``, with whether the run
  ``converged``.
- Time windows (``training.windows``, :mod:`.features.windows`): each window draws its own points; a window's
  parameters go to ``checkpoints/window_<k>.h5`` when it ends (``--resume`` reads those of the windows before
  the one it continues), and evaluation takes each time from its window's network.

Evaluation uses the domain's grid (:mod:`.output.evaluation`): errors over all points inside (space-time for
unsteady cases), field maps on a few x-y planes (time levels, or z levels of a 3D
domain; a high-dimensional ball's held-out points: errors only), the loss history with the Adam → L-BFGS
switch and the evaluation errors, then the equation's ``checks``.

A family (``parameters``, :mod:`.features.parameters`) is evaluated at each combination of its listed values, against
the reference of the equation built at those numbers: the summary's ``family`` lists each one's errors and checks
(the plate's centre coefficients), ``metrics`` the worst of each error over them; ``fields.h5`` and the field
maps show the first combination.

Devices (``parallel``): the batch is placed once when it is made (and again when it is re-made) with its
points sharded along the mesh's data axis (counts rounded up to fill it) and the state replicated, so the
chunks stay the single-device code. Under several processes each draws its share of the points from its
own stream, evaluates on its own copy of the parameters, and only process 0 writes the run folder.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
import optax

from sciml import equations, loop, parallel
from sciml.compile import Policy
from sciml.errors import UserError

from . import features, optim, stages
from .config import PinnCase
from .features import balancing, curriculum, ensemble, windows
from .features.refinement import Refiner
from .geometry import build_geometry
from .output import evaluation, figures, references, report
from .problem import Problem, assemble

PHASE_NAMES = {"adam": "Adam", "lbfgs": "L-BFGS"}  # as the loss plot names them


def _crossed(every: int, step: int, n: int) -> bool:
    """Whether the chunk of ``n`` steps that ended at ``step`` crossed a multiple of ``every`` (0: never)."""
    return bool(every) and step // every != (step - n) // every


def train(cfg: PinnCase, out: str, resume: str | None = None, quiet: bool = False) -> dict:
    """Train the case into run folder ``out`` (``resume``: continue from that folder's latest checkpoint)."""
    with Policy.of(cfg.dtype).precision():  # float64 on (or off) inside; the caller's setting comes back after
        return loop.run(cfg, lambda: _Pinn(cfg, out), out, resume, quiet)


@dataclass(frozen=True)
class _Phase:
    name: str
    start: int  # the step it starts at ...
    end: int  # ... and ends at
    tx: optax.GradientTransformation
    schedule: Callable  # step of the phase -> learning rate
    stage: int = 0  # its stage of the plan

    @property
    def key(self) -> tuple[int, str]:
        return self.stage, self.name


def _phases(plan: list[stages.Stage]) -> list[_Phase]:
    """Each phase with steps: Adam, then L-BFGS, for each stage of the plan."""
    out: list[_Phase] = []
    end = 0
    for k, stage in enumerate(plan):
        if stage.adam.steps:
            tx, sched = optim.adam(stage.adam)
            out.append(_Phase("adam", end, end + stage.adam.steps, tx, sched, k))
            end += stage.adam.steps
        if stage.lbfgs.steps:
            out.append(_Phase("lbfgs", end, end + stage.lbfgs.steps, optim.lbfgs(stage.lbfgs),
                              lambda s: float("nan"), k))
            end += stage.lbfgs.steps
    return out


def _chunk(cfg: PinnCase, phase: _Phase, problem: Problem, members: int) -> jax.stages.Wrapped:
    """The jitted chunk of ``phase`` on ``problem``'s loss (``(state, batch, n) -> (state, losses)``); of
    several ``members``, their joint loss (:func:`.features.ensemble.joint`)."""
    length, bal, loss = cfg.training.log_every, cfg.loss.balancing, ensemble.over(members, problem.loss)
    if phase.name == "lbfgs":  # causal weights held over each chunk (an ensemble's members take none: ensemble.check)
        return optim.lbfgs_chunk(loss, phase.tx, length, problem.causal_weights if cfg.loss.causal else None)
    balance = balancing.grad_norm(ensemble.over(members, problem.term_losses), bal.alpha) if bal is not None else None
    return optim.adam_chunk(loss, phase.tx, length, balance, bal.every if bal else 1)


def _check_dense(plan, problem: Problem, key) -> None:
    """``training.lbfgs.method: bfgs`` holds a P x P matrix: refused above :func:`.optim.dense_max` parameters,
    before anything trains (an ensemble's members never take it: :func:`.features.ensemble.check`)."""
    if not any(s.lbfgs.method == "bfgs" and s.lbfgs.steps for s in plan):
        return
    n = sum(x.size for x in jax.tree_util.tree_leaves(jax.eval_shape(problem.init, key)))
    if n > (most := optim.dense_max()):
        raise UserError(f"training.lbfgs.method: bfgs keeps a {n} x {n} matrix ({n * n * 8 / 2**30:.1f} GiB "
                        f"in float64) for this network's {n} parameters; it is for at most {most} here: "
                        f"use a smaller model or method lbfgs")


class _Pinn:
    """The PINN's side of :func:`sciml.loop.run`: the plan's stages and their phases of jitted chunks,
    resampling and refinement of the collocation points, evaluation on the domain's grid."""

    unit = "step"

    def __init__(self, cfg: PinnCase, out: str | None = None):
        self.cfg, self.out, self.mesh = cfg, out, parallel.mesh(cfg.parallel)
        self.share = lambda n: parallel.local_share(n, self.mesh)
        self.key_init, self.key_train = jax.random.split(jax.random.PRNGKey(cfg.seed))
        self.plan = stages.plan(cfg)
        self.phases = _phases(self.plan)
        self.total = self.phases[-1].end if self.phases else 0
        self.trained: list[tuple[Problem, Any]] = []  # (problem, host parameters) of the time windows done
        self.stage, self.step, self.shapes, self.members = -1, 0, None, 1
        self.phase: tuple[int, str] | None = None
        self.compiled: jax.stages.Compiled | None = None  # the phase's chunk for the batch's shapes
        self.programs: list[tuple[tuple, jax.stages.Compiled]] = []  # a curriculum's chunks, by what they need
        self._enter(0)
        _check_dense(self.plan, self.problem, self.key_init)
        # the whole case (every stage is the same problem's, every window a part of its interval) is evaluated
        geometry = self.problem.geometry if len(self.plan) == 1 else build_geometry(cfg.geometry)
        self.equation = self.problem.equation if len(self.plan) == 1 else equations.create(cfg.equation, geometry)
        self.ev = geometry.evaluation_points(cfg.evaluation.grid)
        # the reference (a family: (values, equation there, reference there) of each evaluated combination)
        self.reference, self.family, self.reference_info = references.of_case(self.equation, self.problem, self.ev,
                                                                              cfg.evaluation.rtol)
        self.residual_points = curriculum.residual_points(self.problem) if cfg.training.curriculum else None
        # what the features add to the rows and the summary (output.report)
        self.reports = [make() for name, make in report.REPORTS.items() if features.USED[name](cfg)]
        self.family_rows: list[dict] = []  # a family's evaluated combinations (report.family)
        self.member_errors: list[tuple] = []  # an ensemble's members' (predictions, errors) on the grid

    def _enter(self, k: int) -> None:
        """Stage ``k``: its problem (a time window after the first: the previous window's fields as initial
        values) and, for the run's first stage and every time window, fresh points."""
        stage, first = self.plan[k], self.stage < 0
        self.stage, self.members = k, stage.members
        initial = windows.handover(*self.trained[-1]) if stage.window else None
        self.problem = problem = assemble(stage.case, initial)
        loss = ensemble.over(stage.members, problem.loss)
        self.term_values = jax.jit(lambda p, b, key: loss(p, b, key)[1])
        if first or stage.window is not None:
            self.rng = parallel.rng(self.cfg.seed, *((stage.window,) if stage.window else ()))
            self.refiner = Refiner(self.cfg.sampling.adaptive, self.rng, self.share)
            self.draws = 0
            self._draw()
        self._place()

    def _leave(self, params) -> None:
        """The end of the current stage: a time window's parameters (host arrays) are kept, and written."""
        window = self.plan[self.stage].window
        if window is not None:
            self.trained.append((self.problem, params))
            if self.out is not None and parallel.is_writer():
                windows.save(self.out, self.cfg, window, params)

    def predictor(self, params, values: dict | None = None) -> Callable:
        """``predict(physical points, of=None)`` of the run so far (``params``: the current stage's; ``values``:
        a family's parameters); with time windows, each time from its window's network; of an ensemble, the
        members' mean."""
        if self.members > 1:
            each = self.members_predict(params, values)
            return lambda pts, of=None: ensemble.mean_fields([p(pts, of) for p in each])[0]
        if self.plan[self.stage].window is None:
            return lambda pts, of=None: self.problem.predict(params, pts, of=of, values=values)
        trained = [*self.trained, (self.problem, params)]
        return lambda pts, of=None: windows.predict(self.cfg, trained, pts, of)

    def members_predict(self, params, values: dict | None = None) -> list[Callable]:
        """Each member's ``predict(physical points, of=None)``."""
        return ensemble.predictors(self.problem.predict, params, self.members, values)

    def _fresh(self, phase: _Phase, key_init, key_train):
        n = self.plan[phase.stage].members
        params = self.problem.init(key_init) if n == 1 else jax.vmap(self.problem.init)(ensemble.keys(key_init, n))
        weights = None if self.cfg.loss.balancing is None else \
            balancing.initial_weights(self.problem.terms, jax.tree_util.tree_leaves(params)[0].dtype)
        return optim.init_state(params, phase.tx, key_train, weights=weights)

    def init(self):
        if not self.phases:
            return {"params": self.problem.init(self.key_init)}
        return self._fresh(self.phases[0], self.key_init, self.key_train)

    def template(self, attrs: dict):
        key = _saved_phase(attrs)
        keys = [p.key for p in self.phases]
        if key not in keys:
            where = f"stage {key[0] + 1}, phase {key[1]!r}" if key[0] else f"phase {key[1]!r}"
            raise UserError(f"saved in {where}, which this case no longer has")
        return self._fresh(self.phases[keys.index(key)], jax.random.PRNGKey(0), jax.random.PRNGKey(0))

    def start(self, state, attrs: dict):
        self.step = int(state.get("step", 0))
        self.phase = _saved_phase(attrs) if "phase" in attrs else self.phases[0].key if self.phases else None
        k = self.phase[0] if self.phase is not None else 0
        if k and self.plan[k].window is not None:  # the windows before this one, from their files
            if self.out is None:
                raise UserError("resuming a run of time windows needs its run folder")
            template = self.problem.init(jax.random.PRNGKey(0))
            self.trained = windows.chain(self.cfg, [windows.load(self.out, self.cfg, j, template) for j in range(k)])
        if k:
            self._enter(k)
        if (missing := int(attrs.get("draws", 1)) - self.draws) > 0:  # the points in use at the save
            for _ in range(missing):
                self._draw()
            self._place()
        return parallel.replicate(state, self.mesh), self.step

    def attrs(self) -> dict:
        stage, name = self.phase if self.phase is not None else (0, None)
        return {"step": self.step, "phase": name, "draws": self.draws,
                **({"stage": stage} if len(self.plan) > 1 else {})}

    def advance(self, state, run: loop.Run) -> loop.Chunk | None:
        phase = next((p for p in self.phases if self.step < p.end), None)
        if phase is None:
            return None
        if phase.stage != self.stage:  # the next stage, from this one's parameters
            self._leave(parallel.to_host(state)["params"])
            self._enter(phase.stage)
            if self.cfg.training.continued:  # a time window: the last one's network continued in time
                previous, params = self.trained[-1]  # (no ensemble has windows)
                state = {**state, "params": parallel.replicate(self.problem.continued(params, previous), self.mesh)}
        if phase.key != self.phase:  # a new phase starts a fresh optimizer state from the params
            self.phase, self.shapes = phase.key, None
            return loop.Chunk(self._fresh_optimizer(state, phase))
        length = self.cfg.training.log_every
        if _shapes(self.batch) != self.shapes:  # first chunk of the phase, or a refined batch
            self.shapes = _shapes(self.batch)
            self.compiled = self._program(phase, state, length, run)
        step, n = self.step, min(length, phase.end - self.step)
        assert self.compiled is not None  # compiled above for these shapes
        new, losses = self.compiled(state, self.batch, n)
        chunk = loop.Chunk(new, np.asarray(losses)[:n], where=lambda i: f"at step {step + i} ({phase.name})",
                           good=f"step {step}", postfix={"phase": phase.name})
        if not np.isfinite(chunk.losses).all():
            return chunk
        self.step = step + n
        terms = self.term_values(new["params"], self.batch, new["key"])
        chunk.row = {"step": self.step, "loss": float(chunk.losses[-1]),
                     **{f"loss.{k}": float(terms[k]) for k in self.problem.terms},
                     **{f"weight.{k}": float(v) for k, v in new.get("weights", {}).items()},
                     "lr": float(phase.schedule(self.step - 1 - phase.start)), "wall_time_s": run.wall(),
                     "phase": self.phases.index(phase)}
        chunk.latest = self.step % self.cfg.training.checkpoint_every < n or self.step == phase.end
        for part in self.reports:
            chunk.row.update(part.row(self, new["params"], phase, run))
        if phase.name == "adam":
            self._new_points(new, n)
        elif self.step < phase.end and _crossed(self.plan[phase.stage].lbfgs.resample_every,
                                                self.step - phase.start, n):
            # new points, and a fresh memory (the curvature pairs and line search were of the old points' loss)
            # or the dense estimate kept, its next pair taken again on the new points (optim.take)
            self._draw()
            self._place()
            kept = self.plan[phase.stage].lbfgs.keep_curvature
            chunk.state = parallel.replicate(optim.new_objective(parallel.to_host(new)), self.mesh) if kept \
                else self._fresh_optimizer(new, phase)
        every = self.cfg.evaluation.every
        if every and self.step % every < n and self.reference is not None:
            chunk.row.update(report.errors_now(self, parallel.to_host(new["params"]), run))  # the loss plot shows them
        return chunk

    def _program(self, phase: _Phase, state, length: int, run: loop.Run) -> jax.stages.Compiled:
        """The phase's chunk compiled for the batch's shapes. A curriculum's stages differ by the value in their
        batch alone: a later stage's phase with the settings and shapes of an earlier one's runs its program."""
        stage = self.plan[phase.stage]
        key = (phase.name, stage.adam if phase.name == "adam" else stage.lbfgs, self.shapes)
        if done := [c for k, c in self.programs if k == key]:
            return done[0]
        with run.compiling():
            compiled = _chunk(self.cfg, phase, self.problem, self.members).lower(state, self.batch, length).compile()
        if stage.constants is not None:
            self.programs.append((key, compiled))
        return compiled

    def _new_points(self, state, n: int) -> None:
        """New collocation points when due (``sampling.resample_every``), refinement (``sampling.adaptive``)."""
        resample = _crossed(self.cfg.sampling.resample_every, self.step, n)
        refine = _crossed(self.refiner.every, self.step, n)
        if resample:
            self._draw()
        if refine:
            self.refiner.refine(self.problem, parallel.to_host(state["params"]))
        if resample or refine:
            self._place()

    def _draw(self) -> None:
        """New base points from the stage's stream, counted (``attrs``: a resume draws as many again)."""
        self.base = self.problem.sample(self.rng, self.share)
        self.draws += 1

    def _place(self) -> None:
        """The batch: the base points and the refined ones (with an ensemble's resamples of the observations;
        a curriculum stage's value as a constant), placed on the devices."""
        batch = self.problem.extend(self.base, self.refiner.points)
        if self.problem.constants is not None:  # arguments: the stages' steps are one program
            batch = {**batch, "constants": self.problem.constants}
        if self.members > 1:
            batch = ensemble.bootstrapped(self.cfg, self.members, batch)
        self.batch = self.problem.place(batch, self.mesh)

    def _fresh_optimizer(self, state, phase: _Phase):
        """``state``'s parameters (and adaptive weights) with a fresh optimizer state of ``phase``, replicated
        (an ensemble's first phase from one network: the network copied to each member)."""
        host = parallel.to_host(state)
        params = host["params"]
        if self.members > 1:
            params = ensemble.spread(params, self.members, jax.eval_shape(self.problem.init, jax.random.PRNGKey(0)))
        fresh = optim.init_state(params, phase.tx, host["key"], self.step, host.get("weights"))
        return parallel.replicate(fresh, self.mesh)

    def summary(self) -> dict:
        n = self.cfg.training.windows
        out: dict[str, Any] = {"autodiff_mode": self.cfg.autodiff.mode, **({"windows": n} if n > 1 else {}),
               "parallel": {**parallel.describe(self.mesh), "interior_points": int(self.batch["interior"].shape[0])},
               **({"reference": self.reference_info} if self.reference_info else {})}
        if self.refiner.on:
            pts = self.refiner.points
            out["adaptive_points"] = 0 if pts is None else int(len(pts)) * jax.process_count()
        return out

    def finish(self, state, run: loop.Run, out: str | None) -> dict:
        params = parallel.to_host(state["params"])
        worst = None
        if self.family is not None:
            worst, self.family_rows = report.family(self, params, run)
        values, shown_eq = (None, self.equation) if self.family is None else self.family[0][:2]
        predict = self.predictor(params, values)
        if self.members > 1:  # each member on the grid once: the mean, the spread, the members' errors
            pred, errors, std = report.members_on_grid(self, params, values, shown_eq)
        else:
            (pred, errors), std = evaluation.errors_of(predict, shown_eq, self.reference, self.ev), None
        errors = errors if worst is None else worst
        if out is not None:
            names = tuple(f"{self.plan[p.stage].label} {PHASE_NAMES[p.name]}".strip() for p in self.phases)
            figures.write(out, self.cfg.case, self.equation, self.ev, pred, std, self.reference, run.rows, names,
                          errors)
        checked = figures.plots_and_checks(predict, shown_eq, self.ev, pred, self.reference, out)
        if worst is None:
            errors.update(checked["metrics"])
            errors.update(references.force_errors(errors, self.reference_info))  # a part's forces, solver's
        result = {"metrics": errors, **({"notes": checked["notes"]} if checked["notes"] else {})}
        for part in self.reports:
            result.update(part.summary(self, params, errors, result, run))
        return result


def _saved_phase(attrs: dict) -> tuple[int, str]:
    """The ``(stage, phase)`` a checkpoint was saved in (a checkpoint from before curricula: stage 0)."""
    return int(attrs.get("stage", 0)), str(attrs.get("phase", "adam"))


def _shapes(batch):
    return jax.tree_util.tree_map(np.shape, batch)


def evaluate(problem: Problem, params, reference: dict | None, ev) -> tuple[dict, dict]:
    """Predictions on the evaluation grid (shaped like it) and relative L2 errors per field (inside only)."""
    return evaluation.errors_of(lambda pts: problem.predict(params, pts), problem.equation, reference, ev)
