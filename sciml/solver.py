"""What a solver package gives the front doors: one :class:`Solver` record, imported by name.

Each package under ``solvers/`` (``sciml.solvers.pinn``, ``sciml.solvers.fno``) exports ``SOLVER``;
``sciml.cases.SOLVERS`` lists them, keyed by the case file's ``solver:`` value. The record's fields are the
whole contract: ``sciml run`` calls ``train``, ``sciml datagen`` calls ``datagen``, ``sciml export`` calls
``export_model``, ``sciml.load_run(...).derived`` calls ``derived_model``, ``load_run(...).predict(x,
estimate=True)`` and ``sciml predict RUN_DIR --estimate`` call ``estimate_model``, and loading a case calls ``check``;
a solver without one of the optional functions leaves it ``None`` (the command says so in one line).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sciml.parallel import ParallelConfig


class CaseConfig(Protocol):
    """What every case file's dataclass (a :attr:`Solver.schema`) gives the front doors and the training
    loop; the other sections are the solver's own."""

    @property
    def case(self) -> str:
        """The case's name: runs go to ``runs/<case>/...``."""

    @property
    def solver(self) -> str:
        """The solver's name (:attr:`Solver.name`)."""

    @property
    def seed(self) -> int:
        """The seed of initialisation, sampling and shuffling."""

    @property
    def dtype(self) -> str:
        """The dtype policy's name (:class:`sciml.compile.Policy`): ``float32``, ``float64``, ..."""

    @property
    def parallel(self) -> ParallelConfig:
        """Devices, mesh and processes (:mod:`sciml.parallel`)."""


@dataclass(frozen=True)
class Solver:
    """A solver as the front doors see it.

    - ``name``: the case file's ``solver:`` value;
    - ``schema``: the case file's dataclass (validated by :func:`sciml.config.validate`), a
      :class:`CaseConfig`;
    - ``train(config, out, resume=None, quiet=False) -> summary dict``: train into run folder ``out``;
    - ``datagen(config, quiet=False, force=False, workers=1) -> dataset path``: make the training data with a
      classical solver (solvers trained on data only);
    - ``export_model(config, run_dir) -> (fn, input_shape, dtype, meta)``: the trained prediction function
      for :func:`sciml.compile.export.save`;
    - ``derived_model(config, run_dir) -> fn(inputs) -> {name: array}``: the derived fields of a trained
      operator's output (the plate's moments) for inputs in its dataset's layout (``sciml.results.Run.derived``);
    - ``estimate_model(config, run_dir) -> fn(inputs, refine=0, tol=None, every=10, lr=None, schedule=None) ->
      {name: array}``: a
      trained operator's predictions with each sample's error estimate and flag, refined by its physics when
      ``refine`` > 0 (``sciml.results.Run.predict``);
    - ``check(config) -> None``: the rules the schema cannot judge alone (e.g. loss-weight names against the
      assembled problem's terms), raising :class:`~sciml.errors.ConfigError` or
      :class:`~sciml.errors.Invalid`; run by :func:`sciml.cases.load`, so ``sciml show`` refuses what
      ``sciml run`` would, before any compute.
    """

    name: str
    schema: type[CaseConfig]
    train: Callable[..., dict]
    datagen: Callable[..., str] | None = None
    export_model: Callable[..., tuple] | None = None
    check: Callable[..., None] | None = None  # (config of its own schema) -> None
    derived_model: Callable[..., Callable] | None = None
    estimate_model: Callable[..., Callable] | None = None
