"""What a solver package gives the front doors: one :class:`Solver` record, imported by name.

Each package under ``solvers/`` (``sciml.solvers.pinn``, ``sciml.solvers.fno``) exports ``SOLVER``;
``sciml.cases.SOLVERS`` lists them, keyed by the case file's ``solver:`` value. The record's fields are the
whole contract: ``sciml run`` calls ``train``, ``sciml datagen`` calls ``datagen`` and ``sciml export`` calls
``export_model``, and a solver without one of the optional functions leaves it ``None`` (the command says so
in one line).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Solver:
    """A solver as the front doors see it.

    - ``name``: the case file's ``solver:`` value;
    - ``schema``: the case file's dataclass (validated by :func:`sciml.config.validate`);
    - ``train(config, out, resume=None, quiet=False) -> summary dict``: train into run folder ``out``;
    - ``datagen(config, quiet=False, force=False, workers=1) -> dataset path``: make the training data with a
      classical solver (solvers trained on data only);
    - ``export_model(config, run_dir) -> (fn, input_shape, dtype, meta)``: the trained prediction function
      for :func:`sciml.compile.export.save`.
    """

    name: str
    schema: type
    train: Callable[..., dict]
    datagen: Callable[..., str] | None = None
    export_model: Callable[..., tuple] | None = None
