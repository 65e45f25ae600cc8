"""Which network a case's ``model.type`` builds: a rule table (:data:`BUILDERS`) of the operator builders, each
``(cfg, in_channels, out_channels, grid) -> Operator`` (:class:`.model.Operator`), ``grid`` the training split's
coordinates (a point set's points: the DeepONet's trunk reads them; the FNO's grid is the case's own)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import deeponet, model
from .config import FnoCase

BUILDERS: dict[str, Callable[..., model.Operator]] = {
    "fno": lambda cfg, c_in, c_out, grid: model.build(cfg, c_in, c_out),
    "recurrent": lambda cfg, c_in, c_out, grid: model.build(cfg, c_in, c_out),
    "space_time": lambda cfg, c_in, c_out, grid: model.build(cfg, c_in, c_out),
    "deeponet": deeponet.build,
}


def build(cfg: FnoCase, in_channels: int, out_channels: int, grid: np.ndarray | None) -> model.Operator:
    """The operator of ``cfg.model.type`` (:data:`BUILDERS`)."""
    return BUILDERS[cfg.model.type](cfg, in_channels, out_channels, grid)
