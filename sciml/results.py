"""A run folder read back for Python (``sciml.load_run``): what the run wrote, and its trained model.

:func:`load_run` gives a :class:`Run`:

- ``summary``: ``summary.json`` as a dict (``None`` while the run has not written one: it is still going);
- ``metrics``: ``metrics.csv`` as ``{column: float array}``, one value per logged row (NaN where a row has no
  value of that column: evaluation errors are logged only every so often);
- ``fields``: ``fields.h5`` as nested dicts of arrays (:func:`sciml.rundir.read_fields`), read when first used;
- ``predict(x)``: the trained model, built when first used from the run's model (``checkpoints/model.h5``: the
  state the run ended with, which its summary scores) exactly as ``sciml export`` builds it
  (:func:`sciml.cases.trained`): a PINN maps physical
  points ``(n, d)`` to ``{field: (n,)}``, an FNO inputs in its dataset's layout to ``{"prediction": ...}``;
  numpy in, numpy out, computed in the case's dtype;
- ``predict(x, estimate=True)``: an operator with physics (``data.generator`` plate or darcy) adds each sample's
  error estimate (``estimate``, ``(batch,)``: its physics' estimate of the relative L2 error), the calibrated flag
  threshold (``threshold``) and ``flagged`` (``estimate >= threshold``: the calibration on the run's test set puts
  every test sample more than 10 % off at or above it); ``refine=STEPS`` (``tol``, ``every``; ``method``:
  ``weights`` fine-tunes a copy of the weights by Adam, its ``lr`` 1e-3 if None and ``schedule``
  ``cosine`` for a plate or ``constant`` for Darcy; ``field``, a plate's only, corrects the decoded field by STEPS
  conjugate-gradient iterations on the plate's energy, ``sciml.solvers.fno.correction``; None: ``field`` for a plate
  on a grid finer than its training grid with no ``lr`` or ``schedule``, else ``weights``,
  ``estimate.default_method``) refines each
  input estimated at or above half the flag threshold, keeping, among the iterates whose estimate fell to 0.4 times
  the trained answer's or below (all of them
  where the trained answer's energy is not below 0 or the iterate's fell below it by a quarter of its size), the one
  of the lowest energy (else the trained answer), and adds ``estimate_before``, ``energy_before``, ``energy``,
  ``refine_steps`` and the derived fields of the answer it returns (the
  plate's moments ``mx, my, mxy`` of the kept answer, as ``derived`` gives the trained one's; those of
  ``derived(x)`` for an input left as trained) (``sciml.solvers.fno.estimate``). Any other run
  asked for them is one
  :class:`~sciml.errors.UserError` line;
- ``derived(x)``: an operator's derived fields for inputs ``x`` in its dataset's layout (the plate operator's
  moments ``{"mx", "my", "mxy"}``, each ``(batch, s..., 1)``: the decoded output's second derivatives by the
  Taylor engine at the input grid's points), from the same checkpoint; a run whose solver has none (a PINN's
  ``predict`` gives its derived fields itself) is one :class:`~sciml.errors.UserError` line.

A folder that is not a run folder, or a damaged file in it, is one :class:`~sciml.errors.UserError` line.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .errors import UserError
from .rundir import Metrics, read_fields, read_summary


@dataclass
class Run:
    folder: str
    summary: dict | None
    metrics: dict[str, np.ndarray]

    @cached_property
    def fields(self) -> dict:
        return read_fields(self.folder)

    def predict(self, x, estimate: bool = False, refine: int = 0, tol: float | None = None, every: int | None = None,
                lr: float | None = None, schedule: str | None = None,
                method: str | None = None) -> dict[str, np.ndarray]:
        """The trained model's outputs for ``x`` (the module's docstring); ``estimate``, ``refine``: with error
        estimates, refined."""
        if not estimate and not refine:
            return self._predictor(x)
        if tol is not None and not refine:
            raise UserError("tol is where the refinement stops: give refine=STEPS too")
        return self._estimator(x, refine=refine, tol=tol, every=every, lr=lr, schedule=schedule, method=method)

    @cached_property
    def _predictor(self) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
        return _predictor(self.folder)

    @cached_property
    def _estimator(self) -> Callable[..., dict[str, np.ndarray]]:
        return _solver_model(self.folder, "estimate_model", "error estimate: --estimate and --refine are for "
                                                            "operators with physics (data.generator plate, darcy)",
                             jit=False)  # it refines input by input, jitting its own steps

    @cached_property
    def derived(self) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
        return _solver_model(self.folder, "derived_model", "derived fields of inputs; its predict gives every field")


def load_run(folder: str) -> Run:
    """The run in ``folder`` (see the module's docstring)."""
    if not os.path.isdir(folder):
        raise UserError(f"{folder}: no such run folder")
    if not os.path.isfile(os.path.join(folder, "config.yaml")):
        raise UserError(f"{folder}: not a run folder (no config.yaml)")
    rows = Metrics.read(os.path.join(folder, "metrics.csv"))
    return Run(folder, read_summary(folder), columns(rows))


def columns(rows: list[dict]) -> dict[str, np.ndarray]:
    """Rows of a table as ``{column: float array}``, columns in the order they first appear, NaN for a gap."""
    names = dict.fromkeys(k for r in rows for k in r)
    return {k: np.array([r.get(k, np.nan) for r in rows], dtype=float) for k in names}


def _predictor(folder: str) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
    from .cases import trained
    from .compile import Policy

    with trained(folder) as (case, (fn, _, dtype, _)):
        return _on_numpy(fn, Policy.of(case.config.dtype), dtype)


def _solver_model(folder: str, which: str, lacking: str, jit: bool = True) -> Callable[..., dict[str, np.ndarray]]:
    """The run's solver's ``which`` model (``derived_model``, ``estimate_model``: ``fn(inputs, **options) -> {name:
    array}``) from the run's case, on numpy (:func:`_on_numpy`, ``jit`` as there); a solver without one is one line
    (``lacking``)."""
    from .cases import load
    from .compile import Policy

    case = load(os.path.join(folder, "config.yaml"))
    make = getattr(case.solver, which)
    if make is None:
        raise UserError(f"{folder}: solver {case.solver.name!r} has no {lacking}")
    policy = Policy.of(case.config.dtype)
    with policy.precision():
        fn = make(case.config, folder)
    return _on_numpy(fn, policy, policy.param_dtype, jit)


def _on_numpy(fn, policy, dtype, jit: bool = True) -> Callable[..., dict[str, np.ndarray]]:
    """``fn`` (inputs, options -> {name: array}), jitted unless ``jit`` is False (a function that jits its own
    parts), called under the case's precision on inputs cast to ``dtype``, its outputs numpy arrays."""
    import jax

    compiled = jax.jit(fn) if jit else fn

    def call(x, **options) -> dict[str, np.ndarray]:
        with policy.precision():
            return {k: np.asarray(v) for k, v in compiled(np.asarray(x, dtype), **options).items()}

    return call
