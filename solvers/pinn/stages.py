"""A run's stages: the sub-problems trained one after another, each from the parameters the last one ended with.

A plain case is one stage. A curriculum (``training.curriculum``, :mod:`.features.curriculum`) is a stage per value of
its number, the case at that value, sharing one set of collocation points; the first runs ``training.adam`` and
``training.lbfgs``, every later one the curriculum's step counts. Time windows (``training.windows``,
:mod:`.features.windows`) are a stage per window, the case on that window's interval, each with the full step counts,
points drawn from a stream of its own, and (after the first) the previous window's fields as initial values.
The two do not combine (the case file says so). An ensemble (``ensemble``, :mod:`.features.ensemble`) trains its
members in the plain case's stage (``start: seeds``), or adds a last stage, ``ensemble``, of its L-BFGS steps
from the trained network (``start: trained``; limited-memory L-BFGS whatever ``training.lbfgs.method`` says,
since the dense one is for one network). The driver (:mod:`.run`) turns a plan into phases and keeps one
step count across stages.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .config import AdamConfig, LbfgsConfig, PinnCase
from .features import curriculum, windows


@dataclass(frozen=True)
class Stage:
    case: PinnCase  # the case this stage trains
    adam: AdamConfig
    lbfgs: LbfgsConfig
    label: str = ""  # how logs and plots name it ("nu 0.01", "window 2"); empty for a plain case
    constants: dict[str, float] | None = None  # a curriculum stage's number: {dotted name in the section: value}
    window: int | None = None  # a time window's index
    members: int = 1  # the networks it trains (an ensemble's)


def plan(cfg: PinnCase) -> list[Stage]:
    """The stages of case ``cfg`` (module notes); the last one's case is ``cfg`` itself unless it has windows."""
    t, cur = cfg.training, cfg.training.curriculum
    if cur is not None:
        values, name = curriculum.stages(cfg), curriculum.number(cfg)
        later = replace(t.adam, steps=cur.adam), replace(t.lbfgs, steps=cur.lbfgs)
        return [Stage(cfg if i == len(values) - 1 else curriculum.stage_case(cfg, v),
                      *((t.adam, t.lbfgs) if i == 0 else later), f"{name} {v:g}", constants={name: v})
                for i, v in enumerate(values)]
    if t.windows > 1:
        return [Stage(windows.case(cfg, k), t.adam, t.lbfgs, f"window {k + 1}", window=k) for k in range(t.windows)]
    e = cfg.ensemble
    if e is None:
        return [Stage(cfg, t.adam, t.lbfgs)]
    if e.start == "seeds":
        return [Stage(cfg, t.adam, t.lbfgs, members=e.members)]
    members = Stage(cfg, replace(t.adam, steps=0), replace(t.lbfgs, steps=e.steps, resample_every=0, method="lbfgs"),
                    "ensemble", members=e.members)
    return [Stage(cfg, t.adam, t.lbfgs), members]
