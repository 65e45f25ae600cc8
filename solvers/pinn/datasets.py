"""``sciml datagen`` for a PINN case: the files it reads, each made by its generator.

``MAKERS``: (what in the case asks for a file, its generator) -- ``equation.start``'s developed flow
(:mod:`.start`) and the ``data`` section's observations (:mod:`.features.observations`). A case with neither is one
line.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sciml.errors import ConfigError

from . import start
from .features import observations

if TYPE_CHECKING:
    from .config import PinnCase

MAKERS: list[tuple[Callable[[PinnCase], bool], Callable[..., str]]] = [
    (lambda cfg: getattr(cfg.equation, "start", None) is not None, start.make),
    (lambda cfg: cfg.data is not None, observations.datagen),
]


def datagen(cfg: PinnCase, quiet: bool = False, force: bool = False, workers: int = 1) -> str:
    """Make every file the case reads (module notes); the paths, comma-separated."""
    makers = [make for wants, make in MAKERS if wants(cfg)]
    if not makers:
        raise ConfigError("the case has nothing to generate (no data section, no equation.start)", key="data")
    return ", ".join(make(cfg, quiet=quiet, force=force) for make in makers)
