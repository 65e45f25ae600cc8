"""The schema of a PINN case file (``solver: pinn``): one dataclass per section."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

from sciml.config import spec
from sciml.equations import EQUATIONS
from sciml.errors import Invalid
from sciml.nn.mlp import ACTIVATIONS

from .geometry import GEOMETRIES, Method

EquationConfig = Union[tuple(cfg for cfg, _ in EQUATIONS.values())]
GeometryConfig = Union[tuple(cfg for cfg, _ in GEOMETRIES.values())]
Activation = Literal[tuple(ACTIVATIONS)]


@dataclass
class ModelConfig:
    type: Literal["mlp"] = "mlp"
    hidden: list[int] = spec(factory=lambda: [20] * 5, ge=1, help="widths of the hidden layers")
    activation: Activation = "tanh"


@dataclass
class SamplingConfig:
    interior: int = spec(2000, ge=1, help="collocation points inside the domain")
    boundary: int = spec(125, ge=1, help="points on each named boundary part")
    method: Method = "sobol"
    resample_every: int = spec(0, ge=0, help="draw new points every k steps (0: never)")


@dataclass
class ScheduleConfig:
    type: Literal["constant", "exponential", "cosine"] = "exponential"
    decay_rate: float = spec(0.9, gt=0.0, le=1.0)
    decay_steps: int = spec(1000, ge=1)
    final_lr: float = spec(0.0, ge=0.0, help="cosine: learning rate at the end")


@dataclass
class AdamConfig:
    steps: int = spec(5000, ge=0)
    lr: float = spec(1e-3, gt=0.0)
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)


@dataclass
class LbfgsConfig:
    steps: int = spec(0, ge=0)
    memory: int = spec(20, ge=1)


@dataclass
class TrainingConfig:
    adam: AdamConfig = field(default_factory=AdamConfig)
    lbfgs: LbfgsConfig = field(default_factory=LbfgsConfig)
    log_every: int = spec(100, ge=1, help="steps between metrics rows, NaN checks and progress updates")
    checkpoint_every: int = spec(1000, ge=1)


@dataclass
class LossConfig:
    weights: dict[str, float] = spec(factory=dict, ge=0.0,
                                     help="weights by group (pde, bc) or by term (e.g. left.w)")


@dataclass
class AutodiffConfig:
    mode: Literal["taylor", "nested", "stochastic"] = "taylor"
    samples: int = spec(16, ge=1, help="random directions per point for mode: stochastic")


@dataclass
class EvaluationConfig:
    grid: list[int] = spec(factory=lambda: [101, 101], ge=2, help="points per axis of the evaluation grid")
    every: int = spec(0, ge=0, help="evaluate against the reference every k steps (0: at the end only)")

    def check(self):
        if len(self.grid) != 2:
            raise Invalid("grid", f"expected [nx, ny], got {self.grid}")


@dataclass
class PinnCase:
    """A physics-informed network trained on one problem."""

    case: str = spec(help="name of the case (the run folder is runs/<case>/...)")
    solver: Literal["pinn"] = spec(help="pinn")
    geometry: GeometryConfig = spec(help="the domain")
    equation: EquationConfig = spec(help="the PDE and its parameters")
    seed: int = spec(0, ge=0)
    dtype: Literal["float32", "float64"] = "float64"
    model: ModelConfig = field(default_factory=ModelConfig)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    loss: LossConfig = field(default_factory=LossConfig)
    training: TrainingConfig = field(default_factory=TrainingConfig)
    autodiff: AutodiffConfig = field(default_factory=AutodiffConfig)
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
