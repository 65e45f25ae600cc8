"""The schema of a PINN case file (``solver: pinn``): one dataclass per section."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from sciml import equations
from sciml.config import spec, suggest
from sciml.config.schema import Registry
from sciml.equations import EQUATIONS
from sciml.equations.base import Section
from sciml.errors import Invalid
from sciml.nn.mlp import Activation
from sciml.parallel import ParallelConfig
from sciml.schedules import ScheduleConfig

from .geometry import GeometryConfig, Method, build_geometry

EquationConfig = Annotated[Section, Registry(EQUATIONS)]  # grows with sciml.equations.register


@dataclass
class FourierConfig:
    """Random Fourier features ``[cos 2πxB, sin 2πxB]``, ``B ~ N(0, scale²)`` (fixed)."""

    features: int = spec(64, ge=1, help="number of frequencies (the embedding has twice as many features)")
    scale: float = spec(1.0, gt=0.0, help="standard deviation of the frequencies")
    inputs: list[str] | None = spec(None, help="the coordinates embedded, e.g. [x, y] (the others go on beside the "
                                               "features); default: all of them")


@dataclass
class FitConfig:
    """How the spline of exact initial values (or a base) is fitted on the grid of ``conditions.spacing``
    (:mod:`.exact`): ``interpolate`` (through their values at its nodes) or ``least_squares`` (the smooth field
    ``g + phi S`` closest to them at ``refine`` points per cell and axis, with ``smoothing``)."""

    method: Literal["interpolate", "least_squares"] = spec("interpolate", help="interpolate or least_squares")
    refine: int = spec(1, ge=1, help="least_squares: data points per spline cell and axis (2 on a grid twice a "
                                     "start lattice's spacing takes the lattice's own nodes)")
    smoothing: float = spec(1e-6, gt=0.0, help="least_squares: the weight of the coefficients' second differences")

    def check(self):
        if self.method == "interpolate" and self.refine != 1:
            raise Invalid("refine", "an interpolating spline takes its nodes' values (refine 1); refine is for "
                                    "method: least_squares")


@dataclass
class ConditionsConfig:
    """How each boundary part's condition is imposed (:mod:`.exact`): ``penalty`` (the default: loss terms) or
    ``exact`` (in the network's output, ``u = g + phi N``, ``phi`` a product of ``1 - exp(-d / length)`` over
    the part's pieces, ``d`` the distance to a piece's line, plane or circle; the quantities that cannot be
    exact, such as a simply supported edge's moment, stay penalties)."""

    enforce: dict[str, Literal["exact", "penalty", "base"]] = spec(
        factory=dict, help="by boundary part: exact or penalty, e.g. {walls: exact}; the initial part also base (its "
                           "values a spline in the output, u = g + phi (S + N), and still penalties)")
    length: float | None = spec(None, gt=0.0, help="the distance factors' length scale, in the domain's units "
                                                   "(needed by exact parts)")
    spacing: float | None = spec(None, gt=0.0, help="exact initial values (or a base) as a C2 spline of their "
                                                    "values on a grid of this spacing (solvers/pinn/exact.py): "
                                                    "needed beside an exact hole, in time windows, for a base")
    fit: FitConfig = spec(factory=FitConfig, help="how that spline is fitted: {method: interpolate} (the default) "
                                                  "or {method: least_squares, refine: 2, smoothing: 1e-6}")

    @property
    def exact(self) -> list[str]:
        """The parts imposed exactly, in the file's order."""
        return [p for p, how in self.enforce.items() if how == "exact"]

    @property
    def base(self) -> bool:
        """Whether the initial values are the output's base (``enforce: {initial: base}``)."""
        return self.enforce.get("initial") == "base"

    @property
    def shaped(self) -> bool:
        """Whether the network's output is transformed (exact parts, or a base)."""
        return bool(self.exact) or self.base

    def check(self):
        if self.shaped and self.length is None:
            raise Invalid("length", f"exact parts {self.exact} need the length scale of their distance factors, "
                                    "e.g. a tenth of the domain's size")
        wrong = [p for p, how in self.enforce.items() if how == "base" and p != "initial"]
        if wrong:
            raise Invalid(f"enforce.{wrong[0]}", "base is for the initial part (the values at the first time)")
        if self.base and self.spacing is None:
            raise Invalid("enforce.initial", "a base needs conditions.spacing (the grid its spline is fitted on)")
        if self.fit != FitConfig() and (self.spacing is None or self.enforce.get("initial") not in ("exact", "base")):
            raise Invalid("fit", "fits the spline of exact initial values (or a base): needs conditions.spacing and "
                                 "enforce.initial exact or base")


@dataclass
class ModelConfig:
    type: Literal["mlp", "modified_mlp"] = "mlp"
    hidden: list[int] = spec(factory=lambda: [20] * 5, ge=1, help="widths of the hidden layers")
    activation: Activation = "tanh"
    fourier: FourierConfig | None = spec(None, help="random Fourier feature embedding of the inputs")

    def check(self):
        if self.type == "modified_mlp" and len(set(self.hidden)) != 1:
            raise Invalid("hidden", f"a modified MLP needs hidden layers of one width, got {self.hidden}")


@dataclass
class AdaptiveConfig:
    """Residual-based adaptive refinement: add the points with the largest residual (Lu et al. 2021)."""

    every: int = spec(1000, ge=1, help="steps between refinements (Adam phase)")
    candidates: int = spec(10000, ge=1, help="random candidate points scored by their residual")
    add: int = spec(200, ge=1, help="points added per refinement")
    max_points: int = spec(4000, ge=0, help="at most this many added points in all")


@dataclass
class NearConfig:
    """Extra interior points in a layer along a boundary part (a boundary layer, a cylinder's wake)."""

    points: int = spec(ge=1, help="points in the layer")
    distance: float = spec(gt=0.0, help="its thickness, in the domain's units")
    initial: int = spec(0, ge=0, help="also this many points of the part 'initial' in the layer at the first time "
                                      "(an unsteady case: a start flow's wall layer)")


@dataclass
class BoxConfig:
    """Extra interior points in a box of space (over the whole time interval of an unsteady case): where the
    residual stays large, e.g. a cylinder's near wake."""

    points: int = spec(ge=1, help="points in the box (draws outside the domain, e.g. in a hole, are redrawn)")
    lower: list[float] = spec(help="its lower corner, physical coordinates, e.g. [0.25, 0.1]")
    upper: list[float] = spec(help="its upper corner, e.g. [0.6, 0.3]")


@dataclass
class AvoidConfig:
    """Balls (disks in 2D) kept free of collocation points: where no smooth field can meet the conditions,
    e.g. a cavity's lid corners, at which the lid's speed jumps from 1 to the walls' 0 (jaxpi samples no
    boundary points there); the network is still evaluated there, only not trained."""

    points: list[list[float]] = spec(help="the balls' centres, physical coordinates, e.g. [[0, 1], [1, 1]]")
    radius: float = spec(gt=0.0, help="their radius, in the domain's units")
    interior: bool = spec(False, help="keep the interior points out too (default: the boundary points only, the "
                                      "initial part's points in layers along parts included)")


@dataclass
class SamplingConfig:
    interior: int = spec(2000, ge=1, help="collocation points inside the domain")
    boundary: int = spec(125, ge=1, help="points on each named boundary part")
    parts: dict[str, int] = spec(factory=dict, ge=1, help="points on given parts, e.g. {initial: 1000}")
    near: dict[str, NearConfig] = spec(factory=dict, help="extra interior points near given parts, e.g. "
                                                          "{cylinder: {points: 2000, distance: 0.05}}")
    boxes: dict[str, BoxConfig] = spec(factory=dict, help="extra interior points in named boxes of space, e.g. {wake: "
                                                          "{points: 2000, lower: [0.25, 0.1], upper: [0.6, 0.3]}}")
    method: Method = "sobol"
    resample_every: int = spec(0, ge=0, help="draw new points every k steps (0: never)")
    adaptive: AdaptiveConfig | None = spec(None, help="residual-based adaptive refinement")
    avoid: AvoidConfig | None = spec(None, help="balls kept free of points, e.g. a cavity's lid corners: "
                                                "{points: [[0, 1], [1, 1]], radius: 0.02}")


@dataclass
class AdamConfig:
    steps: int = spec(5000, ge=0)
    lr: float = spec(1e-3, gt=0.0)
    schedule: ScheduleConfig = spec(factory=ScheduleConfig, help="the learning-rate schedule (an operator's keys), "
                                                                 "every and warmup in optimizer steps")


@dataclass
class LbfgsConfig:
    steps: int = spec(0, ge=0)
    memory: int = spec(20, ge=1)
    method: Literal["lbfgs", "bfgs"] = spec("lbfgs", help="lbfgs: limited memory; bfgs: the dense inverse "
                                                          "Hessian, self-scaled (P^2 numbers for P parameters: "
                                                          "small networks)")
    resample_every: int = spec(0, ge=0, help="new collocation points every k steps, each time with a fresh "
                                             "L-BFGS memory (0: the same points throughout)")
    keep_curvature: bool = spec(False, help="method bfgs: on new points keep the inverse-Hessian estimate (its "
                                            "next pair taken on the new points) instead of a fresh one")

    def check(self):
        if self.keep_curvature and (self.method != "bfgs" or not self.resample_every):
            raise Invalid("keep_curvature", "keeps the dense estimate over new points: it needs method bfgs and "
                                            "resample_every > 0")


@dataclass
class EnsembleConfig:
    """Several networks trained in one ``jit`` (:mod:`.features.ensemble`): the mean and spread of every field, metric
    and identified coefficient, a 95 % interval for each unknown."""

    members: int = spec(8, ge=2, help="networks in the ensemble")
    start: Literal["seeds", "trained"] = spec("seeds", help="seeds: each member trained from its own initial "
                                                            "network through every phase; trained: the case's "
                                                            "phases train one network, then each member goes on "
                                                            "from it on its resample of the data for `steps` "
                                                            "L-BFGS steps")
    bootstrap: bool = spec(True, help="each member fits a resample (with replacement) of the observations (a "
                                      "case without data: ignored)")
    steps: int = spec(300, ge=1, help="start: trained: the members' L-BFGS steps")


@dataclass
class CurriculumConfig:
    """A curriculum (:mod:`.features.curriculum`): stages at the values ``values`` of one number ``key`` of the equation
    section, rising or falling to the section's own, each warm-started from the last one's parameters; the first
    stage (from random parameters) runs ``training.adam`` and ``training.lbfgs``, every later one ``adam`` then
    ``lbfgs`` steps. The run has converged when, at the end, the rms interior residual is at most ``residual``
    and (with the ``ghia1982`` check) Ghia's u and v errors at most ``ghia``."""

    key: str = spec(help="the number continued in, by its dotted name in the case (e.g. equation.load.q0)")
    values: list[float] | Literal["auto"] = spec("auto", help="the stages' values, the last the equation section's "
                                                              "own; auto: the equation's (Equation.continuation)")
    adam: int = spec(0, ge=0, help="Adam steps of each stage after the first")
    lbfgs: int = spec(3000, ge=0, help="L-BFGS steps of each stage after the first")
    ghia: float = spec(0.05, gt=0.0, help="converged: Ghia rel-L2 of u and of v at most this")
    residual: float = spec(1e-2, gt=0.0, help="converged: rms interior residual (nondimensional) at most this")

    @staticmethod
    def unknown_key(key: str, value) -> str | None:
        """The form of before ``key`` (``{<number>: auto}``, the number by its name alone): the line to write now."""
        if value != "auto" and not isinstance(value, list):
            return None
        return f"a curriculum names its number by key: write training.curriculum: {{key: equation.{key}, values: " \
               f"{value}}}"


@dataclass
class TrainingConfig:
    adam: AdamConfig = field(default_factory=AdamConfig)
    lbfgs: LbfgsConfig = field(default_factory=LbfgsConfig)
    windows: int = spec(1, ge=1, help="time windows trained one after another, each by the phases above and "
                                      "from the last one's network (space-time cases)")
    overlap: float = spec(0.0, ge=0.0, le=1.0, help="windows but the last are trained this fraction of a window "
                                                    "past their end; the next starts at the end all the same")
    continued: bool = spec(False, help="time windows: each starts as the last one continued (its network's time "
                                       "input rescaled to the window's, so that it begins with the fields the last "
                                       "one hands over) rather than from its parameters on a time axis restarted")
    curriculum: CurriculumConfig | None = spec(None, help="a continuation in one number of the equation: {key: "
                                                          "equation.<number>, values: auto} (or a list)")
    log_every: int = spec(100, ge=1, help="steps between metrics rows, NaN checks and progress updates")
    checkpoint_every: int = spec(1000, ge=1)


@dataclass
class BalancingConfig:
    """Loss weights balanced by gradient norms (learning-rate annealing, Wang, Teng & Perdikaris 2021)."""

    type: Literal["grad_norm"] = "grad_norm"
    every: int = spec(100, ge=1, help="steps between weight updates")
    alpha: float = spec(0.9, ge=0.0, lt=1.0, help="moving-average factor of the weights")


@dataclass
class CausalConfig:
    """Causal weighting in time (Wang, Sankaran & Perdikaris 2022): later times wait for earlier ones."""

    chunks: int = spec(16, ge=2, help="time slabs")
    epsilon: float = spec(1.0, gt=0.0, help="causality parameter: weight_i = exp(-epsilon * sum of earlier losses)")


@dataclass
class LossConfig:
    weights: dict[str, float] = spec(factory=dict, ge=0.0,
                                     help="weights by group (pde, bc) or by term (e.g. left.w)")
    balancing: BalancingConfig | None = spec(None, help="adaptive weights (multiply the fixed ones)")
    causal: CausalConfig | None = spec(None, help="causal weighting of the residuals in time")


@dataclass
class AutodiffConfig:
    mode: Literal["taylor", "nested", "stochastic"] = "taylor"
    samples: int = spec(16, ge=1, help="random directions per point for mode: stochastic")
    distribution: Literal["rademacher", "gaussian", "sparse"] | None = spec(
        None, help="mode: stochastic: the directions (dense rademacher or gaussian, or sparse √d e_i); default: "
                   "rademacher for Δ, gaussian for Δ²")


@dataclass
class EvaluationConfig:
    grid: list[int] | None = spec(None, ge=2, help="points per coordinate of the evaluation grid "
                                                  "(default: the geometry's)")
    every: int = spec(0, ge=0, help="evaluate against the reference every k steps (0: at the end only)")
    rtol: float = spec(1e-4, gt=0.0, lt=1.0, help="a classical solver's reference (finite elements on a polygon "
                                                  "or a part) is refined until a plate's deflection, a flow's "
                                                  "velocity or a part's temperature on the evaluation grid changes "
                                                  "less than this")


def _interval(values: list[float], key: str, scale: str, positive: str) -> str:
    """``values`` as shown in messages, checked to be ``[low, high]`` with ``low < high`` (and ``low > 0`` for
    ``scale: log``; ``positive`` names what it needs); :class:`Invalid` at ``key`` otherwise."""
    shown = "[" + ", ".join(f"{b:g}" for b in values) + "]"
    if len(values) != 2 or not values[0] < values[1]:
        raise Invalid(key, f"expected [low, high] with low < high, got {shown}")
    if scale == "log" and values[0] <= 0:
        raise Invalid(key, f"scale: log needs {positive}, got {shown} (or use scale: linear)")
    return shown


@dataclass
class FieldConfig:
    """An unknown that varies in space (:mod:`.features.unknowns`): a small MLP of the nondimensional coordinates gives
    the raw ``z`` at every point, its last layer starting at zero (the field starts at ``initial`` everywhere)."""

    hidden: list[int] = spec(factory=lambda: [16, 16], ge=1, help="hidden layer widths, e.g. [16, 16]")
    activation: Activation = "tanh"
    sparsity: float = spec(0.0, ge=0.0, help="weight of the loss term prior.<name>: the mean over the interior "
                                             "points of |field / initial - 1| (smoothed within 1e-2 of 0), which "
                                             "favours fields that differ from initial in few places (a damaged "
                                             "zone, not a broad slope); 0: no such term")


@dataclass
class UnknownConfig:
    """An equation coefficient learnt in training (:mod:`.features.unknowns`): a trained scalar ``z`` carried beside the
    network's parameters, mapped into the bounds, ``lo (hi / lo)^sigmoid(z)`` (``scale: log``) or
    ``lo + (hi - lo) sigmoid(z)`` (``linear``), starting at ``initial``; with ``field``, ``z`` is a small network's
    output at each point (a coefficient varying in space, in the same units and bounds). The equation section's
    own value of it is then the truth (what ``sciml datagen`` makes the data with, and what the reported error
    is against); training never reads it."""

    initial: float = spec(help="the value training starts from (strictly inside the bounds; a field's everywhere)")
    bounds: list[float] = spec(help="[low, high]: the value stays strictly between them (a field's at every "
                                    "point; in the number's units, as a scalar's)")
    scale: Literal["log", "linear"] = spec("log", help="log: sigmoid in log(value) (positive bounds); linear: in "
                                                       "the value")
    field: FieldConfig | None = spec(None, help="the number varies in space: its raw value is a small network's, "
                                                "e.g. {hidden: [16, 16]} (numbers that may: the equation's, the "
                                                "plate's D)")

    def check(self):
        shown = _interval(self.bounds, "bounds", self.scale, "positive bounds")
        if not self.bounds[0] < self.initial < self.bounds[1]:
            raise Invalid("initial", f"{self.initial:g} is not strictly inside the bounds {shown}")


@dataclass
class ParameterConfig:
    """A number of the equation section made an input of the network (:mod:`.features.parameters`): one network for
    the family of problems over ``range``; each point is trained at a value drawn with it (uniform in the
    value, or in its log with ``scale: log``), and the evaluation scores the listed ``values`` against their
    references. The equation section's own value of it is then unused."""

    range: list[float] = spec(help="[low, high]: the family's values, low < high")
    values: list[float] | None = spec(None, help="the values evaluated against the reference, inside the range "
                                                 "(default: 5 evenly spread, ends included)")
    scale: Literal["linear", "log"] = spec("linear", help="linear: sampled uniform in the value; log: in its log "
                                                          "(positive range); the network sees it mapped to [-1, 1]")

    def check(self):
        shown = _interval(self.range, "range", self.scale, "a positive range")
        for v in self.values or ():
            if not self.range[0] <= v <= self.range[1]:
                raise Invalid("values", f"{v:g} is outside the range {shown}")
        if self.values is not None and not self.values:
            raise Invalid("values", "list at least one value, or leave values out")


@dataclass
class SensorsConfig:
    """Where ``sciml datagen`` places the observations (:mod:`.features.observations`)."""

    layout: Literal["grid", "random"] = spec(help="grid: a regular grid strictly inside the domain's box (its "
                                                  "edges left out); random: uniform in the domain")
    points: list[int] = spec(ge=1, help="grid: points per coordinate, e.g. [5, 5]; random: [count]")


@dataclass
class DataConfig:
    """Observations of the derived fields (:mod:`.features.observations`): a ``data.<field>`` loss term each (group
    ``data``), the mean square of ``(prediction - observation) / rms(observations)``."""

    path: str = spec(help="CSV (a header naming the coordinates and fields) or HDF5 (a dataset per name); made "
                          "by `sciml datagen CASE.yaml` from the equation's reference")
    fields: list[str] = spec(help="the observed fields, e.g. [w] or [u, v]")
    weight: float = spec(1.0, ge=0.0, help="the data terms' weight (as loss.weights.data)")
    noise: float = spec(0.0, ge=0.0, help="datagen: Gaussian noise, std relative to each field's rms over the "
                                          "sensors")
    seed: int = spec(0, ge=0, help="datagen: the seed of the random sensors and the noise")
    sensors: SensorsConfig | None = spec(None, help="datagen: where the observations are, e.g. "
                                                    "{layout: grid, points: [5, 5]}")

    def check(self):
        if not self.fields:
            raise Invalid("fields", "name at least one observed field")
        if self.sensors is not None and self.sensors.layout == "random" and len(self.sensors.points) != 1:
            raise Invalid("sensors.points", f"random: one count, e.g. [200], got {self.sensors.points}")


def _unknown_part(key: str, name: str, parts) -> Invalid:
    return Invalid(key, f"unknown boundary part{suggest(name, parts)}; parts are {list(parts)}")


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
    conditions: ConditionsConfig = field(default_factory=ConditionsConfig)
    training: TrainingConfig = field(default_factory=TrainingConfig)
    autodiff: AutodiffConfig = field(default_factory=AutodiffConfig)
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    parallel: ParallelConfig = field(default_factory=ParallelConfig)
    unknowns: dict[str, UnknownConfig] = spec(factory=dict, help="equation coefficients learnt from the data, by "
                                                                 "name, e.g. {D: {initial: 10, bounds: [1, 100]}}")
    data: DataConfig | None = spec(None, help="observations: a data-misfit term per observed field")
    parameters: dict[str, ParameterConfig] = spec(factory=dict, help="equation numbers made network inputs, by "
                                                                     "name: one network for the family, e.g. "
                                                                     "{aspect: {range: [1, 3]}}")
    ensemble: EnsembleConfig | None = spec(None, help="several networks at once, their spread and intervals: "
                                                      "{members: 8}")

    def check(self):
        """Cross-section rules: the equation against the domain, part names, grid and time options."""
        mesh = self.parallel.mesh
        if mesh is not None and len(mesh) == 2 and mesh[1] > 1:
            raise Invalid("parallel.mesh", f"a PINN shards only its points (its parameters are replicated): "
                                           f"use [{mesh[0] * mesh[1]}], not {mesh}")
        domain = build_geometry(self.geometry)
        try:
            equations.check_geometry(self.equation, domain)
        except Invalid as e:
            raise Invalid(f"equation.{e.key}", e.message) from None
        for key in ("parts", "near"):
            for part in getattr(self.sampling, key):
                if part not in domain.parts:
                    raise _unknown_part(f"sampling.{key}.{part}", part, domain.parts)
        for part, near in self.sampling.near.items():
            if near.initial and domain.time is None:
                raise Invalid(f"sampling.near.{part}.initial", "initial points need a time interval (geometry.time)")
        embedded = self.model.fourier.inputs if self.model.fourier is not None else None
        if embedded is not None and (not embedded or not set(embedded) <= set(domain.coords)):
            raise Invalid("model.fourier.inputs", f"expected some of this case's coordinates {list(domain.coords)}, "
                                                  f"got {embedded}")
        space = [c for c in domain.coords if c != "t"]

        def spatial(key: str, point: list[float]) -> None:  # a point of space: one number per coordinate
            if len(point) != len(space):
                raise Invalid(key, f"expected {len(space)} coordinates {space}, got {point}")

        for name, box in self.sampling.boxes.items():
            key = f"sampling.boxes.{name}"
            spatial(f"{key}.lower", box.lower)
            spatial(f"{key}.upper", box.upper)
            if not all(a < b for a, b in zip(box.lower, box.upper)):
                raise Invalid(key, f"needs lower < upper in every coordinate, got {box.lower} and {box.upper}")
            if not domain.in_box(box.lower, box.upper, 4096).any():
                raise Invalid(key, f"the box {box.lower} to {box.upper} holds no point of the domain")
        for i, centre in enumerate(self.sampling.avoid.points if self.sampling.avoid is not None else ()):
            spatial(f"sampling.avoid.points[{i}]", centre)
        for part in self.conditions.enforce:
            if part not in domain.parts:
                raise _unknown_part(f"conditions.enforce.{part}", part, domain.parts)
        if self.training.windows > 1 and self.conditions.enforce.get("initial") == "exact" and \
                self.conditions.spacing is None:
            raise Invalid("conditions.enforce.initial", "a time window's initial values are the previous "
                                                        "window's network: exact with conditions.spacing (a spline "
                                                        "of them on that grid), or use penalty")
        grid = self.evaluation.grid
        if grid is not None and len(grid) != domain.dim:
            raise Invalid("evaluation.grid", f"expected {domain.dim} sizes, one per coordinate "
                                             f"{list(domain.coords)}, got {grid}")
        if self.loss.causal is not None and domain.time is None:
            raise Invalid("loss.causal", "causal weighting needs a time interval (geometry.time)")
        if self.training.windows > 1 and domain.time is None:
            raise Invalid("training.windows", "time windows need a time interval (geometry.time)")
        if self.training.overlap and self.training.windows == 1:
            raise Invalid("training.overlap", "an overlap is of time windows: set training.windows > 1")
        if self.training.continued:
            self._check_continued(domain)

    def _check_continued(self, domain) -> None:
        """``training.continued`` rewrites the network's time input: time windows, the time not in the Fourier
        embedding, the initial values not in the output (a window's network is then not its fields)."""
        if self.training.windows == 1:
            raise Invalid("training.continued", "continues one time window into the next: set training.windows > 1")
        emb = self.model.fourier
        if emb is not None and (emb.inputs is None or domain.coords[-1] in emb.inputs):
            raise Invalid("training.continued", "the time goes through the Fourier embedding, where a window's "
                                                "shift is no change of the first layer: list the space alone in "
                                                "model.fourier.inputs")
        if self.conditions.enforce.get("initial", "penalty") != "penalty":
            raise Invalid("training.continued", "the initial values are in the network's output "
                                                "(conditions.enforce.initial): continue with them as a penalty")
