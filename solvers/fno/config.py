"""The schema of an FNO case file (``solver: fno``): data, model, training and evaluation sections."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from sciml import averaging, schedules
from sciml.config import spec, suggest
from sciml.errors import Invalid
from sciml.nn.deeponet import conv_shape
from sciml.nn.fno import check_modes
from sciml.nn.mlp import Activation
from sciml.parallel import ParallelConfig

from .generators import GENERATORS, Generator, factor
from .physics import PHYSICS

Backend = Literal["cpu", "gpu", "tpu"]  # JAX backends a per-backend setting may name

if TYPE_CHECKING:  # mypy cannot read a Literal built at run time
    GeneratorName = str
else:  # a key of the generator table
    GeneratorName = Literal[tuple(GENERATORS)]


@dataclass
class DataConfig:
    path: str = spec(help="HDF5 dataset (made by `sciml datagen CASE.yaml`), e.g. data/<case>.h5")
    resolution: int = spec(ge=2, help="training grid: points per spatial axis")
    n_train: int = spec(ge=1)
    n_test: int = spec(ge=1)
    generator: GeneratorName | None = spec(None, help="classical solver that makes the data (or data.file)")
    file: str | None = spec(None, help="a dataset file of your own in place of a generator (HDF5, MATLAB v5 or "
                                       "v7.3; `sciml data info FILE` shows its arrays as read): `sciml datagen` "
                                       "copies its samples into data.path, subsampled to each grid")
    inputs: str | list[str] = spec(factory=list, help="data.file: the key of the inputs' array, (samples, grid..., "
                                                      "[channels]); a list for several arrays, their channels "
                                                      "side by side")
    outputs: str | list[str] = spec(factory=list, help="data.file: the key(s) of the outputs' array(s), as inputs")
    grid: str = spec("closed", help="data.file: closed: the file's grid holds both ends of [0, 1] (x_j = j / (n - "
                                    "1)); periodic: x_j = j / n; any other word: the key of the file's array of "
                                    "points (n_points, d), the coordinates of the arrays' values, which are then "
                                    "(samples, n_points[, channels]): an unstructured point set, the nodes of a "
                                    "mesh (model.type deeponet; data.resolution is n_points)")
    dims: int | None = spec(None, ge=1, help="data.file on a grid: the arrays' grid axes (default: as many as "
                                             "model.modes has numbers; model.type deeponet names them here)")
    test_file: str | None = spec(None, help="data.file: the test samples' file, the same keys (default: the n_test "
                                            "rows after the n_train training rows of data.file)")
    made_by: str | None = spec(None, help="data.file: the command that makes the file (and test_file), e.g. a "
                                          "script of your own; named when the file is missing, never run by sciml")
    super_resolution: list[int] = spec(factory=list, ge=2,
                                       help="finer test grids for zero-shot super-resolution")
    solve_resolution: int | None = spec(None, ge=2, help="grid of the classical solver (default: the finest "
                                                         "resolution asked for; with n_test_super, data.resolution); "
                                                         "coarser grids are subsampled")
    n_test_super: int | None = spec(None, ge=1, help="test samples of their own for the super_resolution grids, "
                                                     "solved on the finest of them (default: the n_test samples, "
                                                     "solved once on the solver's grid, serve every grid)")
    seed: int = spec(0, ge=0, help="seed of the random inputs")
    n_labelled: int | None = spec(None, ge=1, help="only the first n_labelled training samples carry the data term "
                                                   "(drawn in batches of their own, min(training.batch_size, "
                                                   "n_labelled) a step), the physics terms take every training "
                                                   "input; no other solved output is read (default: all samples "
                                                   "labelled, one batch for every term)")
    physics_resolution: int | None = spec(None, ge=2, help="grid of the physics terms' inputs, finer than "
                                                         "data.resolution (the training inputs are also stored "
                                                         "there, subsampled from the solver's grid: an input costs no "
                                                         "solve, the PINO paper's setting); needs data.n_labelled or "
                                                         "a physics-only loss (default: the training grid)")
    n_physics: int | None = spec(None, ge=1, help="inputs for the physics terms alone, beyond the n_train "
                                                  "training samples: drawn as they are and never solved (an input "
                                                  "costs one draw of the random field), stored on the physics "
                                                  "terms' grid; an epoch is then n_train + n_physics inputs. Needs "
                                                  "data.n_labelled or a physics-only loss, and a generator that "
                                                  "draws inputs alone (darcy)")
    params: dict[str, Any] = spec(factory=dict, help="parameters of the generator")
    t_in: int = spec(10, ge=1, help="vorticity: time steps given")
    t_out: int = spec(40, ge=1, help="vorticity: time steps predicted")
    chunk: int = spec(100, ge=1, help="samples per call of the generator, committed as one part (the seed of "
                                      "each chunk derives from data.seed and the chunk index; an interrupted "
                                      "datagen continues after the last complete chunk)")

    @property
    def resolutions(self) -> list[int]:
        """Test resolutions: the training grid first, then the finer ones."""
        return [self.resolution, *[r for r in self.super_resolution if r != self.resolution]]

    @property
    def physics_grid(self) -> int:
        """The grid of the physics terms' inputs."""
        return self.physics_resolution or self.resolution

    @property
    def physics_inputs(self) -> int:
        """The physics terms' inputs, an epoch's: the training samples and the ``n_physics`` unsolved ones."""
        return self.n_train + (self.n_physics or 0)

    @property
    def solver_grid(self) -> int:
        """The grid the training and test samples are solved on."""
        return self.sample_sets()[0].grid

    def sample_sets(self) -> list[SampleSet]:
        """The training and test samples; then, with ``n_test_super``, the super-resolution grids' own; then,
        with ``n_physics``, the physics terms' unsolved inputs (drawn on the training samples' solver grid)."""
        if not self.n_test_super:
            origin = "data.solve_resolution" if self.solve_resolution else "the finest test grid"
            sets = [SampleSet(self.n_train + self.n_test, self.solve_resolution or max(self.resolutions),
                              tuple(self.resolutions), origin)]
        else:
            origin = "data.solve_resolution" if self.solve_resolution else "data.resolution"
            sets = [SampleSet(self.n_train + self.n_test, self.solve_resolution or self.resolution,
                              (self.resolution,), origin),
                    SampleSet(self.n_test_super, max(self.resolutions), tuple(self.resolutions[1:]),
                              "the finest super_resolution grid", "super")]
        if self.n_physics:
            sets.append(SampleSet(self.n_physics, sets[0].grid, (), "data.n_physics", "unsolved"))
        return sets

    def source(self, dims: int) -> Generator:
        """What makes the data: the generator's record, or for ``data.file`` one of ``dims`` spatial axes on the
        file's kind of grid (:class:`.generators.Generator`, no solver); a point set's arrays have one axis of
        points."""
        if self.generator is not None:
            return GENERATORS[self.generator]
        return Generator("file", None, 1 if self.points else dims, self.grid_kind, None)

    @property
    def grid_kind(self) -> str:
        """``closed``, ``periodic`` or, where ``data.grid`` names the file's array of points, ``points``."""
        return self.grid if self.grid in GRID_KINDS else "points"

    @property
    def points(self) -> str | None:
        """The file's key of the points' coordinates (``data.grid`` naming an array), or None on a grid."""
        return None if self.grid in GRID_KINDS else self.grid

    @property
    def keys(self) -> tuple[list[str], list[str]]:
        """``data.file``'s input and output keys, as lists."""
        return tuple([k] if isinstance(k, str) else list(k) for k in (self.inputs, self.outputs))  # type: ignore

    def check(self):
        if (self.generator is None) == (self.file is None):
            raise Invalid("file" if self.file else "generator", "give one of data.generator (a classical solver) "
                                                               "and data.file (a dataset file of your own)")
        if self.file is not None:
            return self._check_file()
        if self.points:
            raise Invalid("grid", f"{self.grid!r} names an array of a data.file; a generator's grid is its own "
                                  f"(data.grid is one of {list(GRID_KINDS)})")
        if self.dims is not None:
            raise Invalid("dims", "counts a data.file's grid axes; a generator's are its own")
        if self.made_by is not None:
            raise Invalid("made_by", "names the command that makes a data.file; a generator's data is made by "
                                     "`sciml datagen`")
        gen = self.source(0)
        for i, r in enumerate(self.super_resolution):
            if r < self.resolution:
                raise Invalid(f"super_resolution[{i}]", f"{r} is coarser than data.resolution {self.resolution}")
        if self.n_test_super and len(self.resolutions) < 2:
            raise Invalid("n_test_super", "there is no super_resolution grid finer than data.resolution to test on")
        if self.physics_resolution is not None and self.physics_resolution <= self.resolution:
            raise Invalid("physics_resolution", f"{self.physics_resolution} is not finer than data.resolution "
                                                f"{self.resolution} (leave it out for the training grid)")
        if self.physics_resolution and factor(self.solver_grid, self.physics_resolution, gen.grid) is None:
            raise Invalid("physics_resolution", f"a {gen.grid} grid of {self.physics_resolution} points is not a "
                                                f"subsample of the solver's grid of S = {self.solver_grid} points")
        keys = [("resolution", self.resolution)] + [(f"super_resolution[{i}]", r)
                                                    for i, r in enumerate(self.super_resolution)]
        for key, r in keys:
            for S, origin in [(s.grid, s.origin) for s in self.sample_sets() if r in s.serves]:
                if factor(S, r, gen.grid) is None:
                    rule = "(S - 1) / (s - 1)" if gen.grid == "closed" else "S / s"
                    raise Invalid(key, f"a {gen.grid} grid of {r} points is not a subsample of the solver's grid of "
                                       f"S = {S} points ({origin}); {rule} must be an integer")

    def _check_file(self):
        """A dataset from a file: its keys given, and none of a generator's settings (:data:`FILE_REFUSES`)."""
        for key, (value, why) in FILE_REFUSES.items():
            if getattr(self, key) != value:
                raise Invalid(key, f"a dataset from data.file {why}")
        for key, keys in zip(("inputs", "outputs"), self.keys):
            if not keys:
                raise Invalid(key, "name the file's array(s) (`sciml data info FILE` lists them)")
        if self.points and self.super_resolution:
            raise Invalid("super_resolution", f"a point set (data.grid {self.grid!r}) is one grid: it has no finer "
                                              f"grids to test on")
        if self.points and self.dims is not None:
            raise Invalid("dims", f"a point set's arrays (data.grid {self.grid!r}) have one axis of points; its "
                                  f"coordinates' dimension is the points array's")


GRID_KINDS = ("closed", "periodic")  # data.grid's words for a file's tensor grid (any other names its points)


# a generator's settings that a dataset from a file does not take: key -> (its value unset, why)
FILE_REFUSES: dict[str, tuple[Any, str]] = {
    "params": ({}, "has no generator parameters"),
    "solve_resolution": (None, "is not solved: its grid is the file's"),
    "n_test_super": (None, "has no solver to make finer test samples: give a test_file holding them, finer"),
    "physics_resolution": (None, "stores no inputs on a finer grid for the physics terms (it has none)"),
    "n_physics": (None, "has no generator to draw unsolved inputs"),
}


@dataclass(frozen=True)
class SampleSet:
    """Samples solved on one grid (``grid``, named by ``origin`` in messages) and subsampled to the test grids
    they serve. ``kind``: ``main`` (the training split, then the test split), ``super`` (``n_test_super``'s test
    samples), ``unsolved`` (``n_physics``: inputs alone, for the physics grid)."""

    n: int
    grid: int
    serves: tuple[int, ...]
    origin: str
    kind: Literal["main", "super", "unsolved"] = "main"

    @property
    def solved(self) -> bool:
        return self.kind != "unsolved"


@dataclass
class ModelConfig:
    type: Literal["fno", "recurrent", "space_time", "deeponet"] = spec(
        "fno", help="fno: inputs -> outputs in one pass; recurrent: one time step at a time, fed back "
                    "(vorticity); space_time: FNO-3D over (x, y, t) (vorticity); deeponet: a DeepONet, a branch MLP "
                    "(or CNN) on the inputs at the sensors times a trunk MLP on the output points' coordinates (any "
                    "grid or point set; with physics terms, a physics-informed DeepONet: derivatives through the "
                    "trunk)")
    modes: list[int] = spec(factory=lambda: [12, 12], ge=1, help="Fourier modes kept per axis")
    width: int = spec(32, ge=1, help="channels of the Fourier layers")
    layers: int = spec(4, ge=1)
    lifting: list[int] = spec(factory=list, ge=1, help="hidden widths of the lifting MLP ([]: linear)")
    projection: list[int] = spec(factory=lambda: [128], ge=1, help="hidden widths of the projection MLP")
    padding: int | list[int] = spec(0, ge=0, help="zeros appended on the right of each axis (non-periodic "
                                                  "problems): one number for all axes, or one per axis")
    pad_fill: Literal["zeros", "smooth"] = spec(
        "zeros", help="what fills the padding: zeros (the paper's) or smooth (a cosine blend from each axis's last "
                      "value back to its first: no jump round the period, so the kept modes change less with the "
                      "resolution)")
    grid: bool = spec(True, help="append the coordinates as input channels")
    activation: Activation = "gelu"
    normalize: bool = spec(True, help="scale inputs and outputs by the training set's channel mean and std")
    spectral: Literal["auto", "dft", "fft"] = spec(
        "auto", help="how the Fourier layers transform: dft (truncated DFTs as matrix products, the faster on "
                     "a CPU and on a GPU: sciml bench fno-step), fft (XLA's FFT), auto (dft)")
    step: int = spec(1, ge=1, help="recurrent: time steps predicted per call")
    vanish_on_edges: bool = spec(False, help="multiply the outputs by prod_a 4 x_a (1 - x_a), so that they are 0 "
                                             "on the edges of the unit square exactly (w = 0 of the plate imposed, "
                                             "not penalised), or by its square where the edges are clamped "
                                             "(data.params.edges clamped: w = dw/dn = 0); model.type fno or deeponet "
                                             "on a closed grid")
    branch: list[int] = spec(factory=lambda: [128, 128], ge=1, help="deeponet: hidden widths of the branch MLP (on "
                                                                    "the inputs' values at the sensors)")
    trunk: list[int] = spec(factory=lambda: [128, 128], ge=1, help="deeponet: hidden widths of the trunk MLP (on the "
                                                                   "output points' coordinates)")
    basis: int = spec(64, ge=1, help="deeponet: p, the branch and trunk outputs summed per output channel")
    sensors: int = spec(1, ge=1, help="deeponet: the branch reads the inputs at every sensors-th point of the "
                                      "training grid along each axis (of a point set: of its points)")
    harmonics: int = spec(0, ge=0, help="deeponet: the trunk takes cos 2 pi k x, sin 2 pi k x (k = 1..harmonics) of "
                                        "each coordinate, in place of x on a periodic grid (an exactly periodic "
                                        "output), beside it otherwise; 0: the coordinates alone")
    conv: list[int] = spec(factory=list, ge=1, help="deeponet: a CNN branch, the channels of its convolutions on the "
                                                    "sensors' grid (each activated, no padding), before the branch "
                                                    "MLP on their flattened outputs; []: the MLP alone (a tensor grid)")
    conv_kernel: int = spec(5, ge=1, help="deeponet: points per axis of the CNN branch's kernels (model.conv)")
    conv_stride: int = spec(2, ge=1, help="deeponet: the CNN branch's stride (model.conv)")


@dataclass(frozen=True)
class ModelKind:
    """What a ``model.type`` reads and needs (:data:`MODELS`)."""

    keys: tuple[str, ...]  # ModelConfig's keys of its own: another kind's key set to other than its default is refused
    trajectory: bool = False  # needs a time-dependent generator (the channels are time steps)
    grids: tuple[str, ...] = GRID_KINDS  # the grid kinds it trains on (DataConfig.grid_kind)
    fourier: bool = True  # an FNO: model.modes and padding fit the grid; it takes any grid (zero-shot, export),
    # decodes its Fourier series on a finer grid (evaluation.decoded) and splits its channels (parallel.mesh)
    field: bool = True  # its output is a function of the coordinates (Operator.field): physics terms, derived
    # fields (the plate's moments) and evaluation.estimate read it (an FNO's decoded series, a DeepONet's trunk)
    edges: bool = True  # model.vanish_on_edges (on a closed grid)


_FNO_KEYS = ("modes", "width", "layers", "lifting", "projection", "padding", "pad_fill", "grid", "spectral")
MODELS = {
    "fno": ModelKind(_FNO_KEYS),
    "recurrent": ModelKind(_FNO_KEYS + ("step",), trajectory=True, field=False, edges=False),
    "space_time": ModelKind(_FNO_KEYS, trajectory=True, field=False, edges=False),
    "deeponet": ModelKind(("branch", "trunk", "basis", "sensors", "harmonics", "conv", "conv_kernel", "conv_stride"),
                          grids=GRID_KINDS + ("points",),
                          fourier=False),
}


FIELD_TYPES = tuple(t for t, kind in MODELS.items() if kind.field)  # the types whose output is a function of x


def foreign_keys(m: ModelConfig) -> list[str]:
    """``model``'s keys that belong to other kinds of :data:`MODELS` than ``model.type`` and are set."""
    defaults = ModelConfig()
    own = MODELS[m.type].keys
    others = dict.fromkeys(k for kind in MODELS.values() for k in kind.keys if k not in own)
    return [k for k in others if getattr(m, k) != getattr(defaults, k)]


@dataclass
class EpochSchedule(schedules.ScheduleConfig):
    """The learning-rate schedule of every solver (:class:`sciml.schedules.ScheduleConfig`), counted in epochs,
    with the FNO paper's recipe by default: lr halved every 100 epochs."""

    UNIT: ClassVar[str] = "epoch"

    type: schedules.Type = schedules.default("type", "step")
    decay: float = schedules.default("decay", 0.5)
    every: int = schedules.default("every", 100)


@dataclass
class AverageConfig:
    type: Literal["none", "ema", "swa"] = spec(
        "none", help="evaluate, write and export an average of the parameters: ema, an exponential moving average "
                     "updated after every step; swa, the mean of the parameters at the end of each epoch; none: "
                     "the parameters themselves")
    decay: float = spec(0.999, gt=0.0, lt=1.0, help="ema: average <- decay * average + (1 - decay) * parameters")
    start: int = spec(0, ge=0, help="epochs trained before averaging begins (until then the average is the "
                                    "parameters)")

    def rule(self) -> averaging.Averaging:
        return averaging.build(self.type, self.decay, self.start)


@dataclass
class LossTerms:
    """Weights of the loss terms (:mod:`.physics`): a term with weight 0 is not computed."""

    data: float = spec(1.0, ge=0.0, help="training.loss of the predictions against the solved outputs (0: "
                                         "physics only, no solved sample used in training)")
    pde: float = spec(0.0, ge=0.0, help="relative PDE residual at the training grid's points (plate: of the decoded "
                                        "field or through the DeepONet's trunk, derivatives by the Taylor engine; "
                                        "darcy: the conservative scheme's, in flux form) (physics-informed: PINO, "
                                        "PI-DeepONet)")
    boundary: float = spec(0.0, ge=0.0, help="the boundary conditions of the output on the grid's edges")
    energy: float = spec(0.0, ge=0.0, help="the total potential energy of the output (Ritz: minimised by the "
                                           "solution; plate: of the decoded field, darcy: the scheme's discrete "
                                           "Dirichlet energy), relative to an energy scale of the load; needs "
                                           "model.vanish_on_edges")
    preconditioned: float = spec(0.0, ge=0.0, help="darcy: the scheme's residual through the inverse of the "
                                                   "five-point Laplacian, relative (about the relative L2 error of "
                                                   "the output: it weighs every wavenumber of the error alike, "
                                                   "where the energy weighs wavenumber k by k^2)")

    @property
    def physics(self) -> bool:
        return any(getattr(self, name) > 0 for name in PHYSICS_TERMS)


PHYSICS_TERMS = ("pde", "boundary", "energy", "preconditioned")  # LossTerms' physics terms: a physics' TERMS


@dataclass
class TrainingConfig:
    epochs: int = spec(500, ge=0)
    batch_size: int = spec(20, ge=1)
    micro_batch: int | dict[Backend, int | None] | None = spec(
        None, ge=1, help="samples per gradient evaluation inside a step (the gradients are summed: the same step, "
                         "less memory and on a CPU faster); must divide batch_size; default: the batch. Per JAX "
                         "backend, {cpu: 1}: one it does not name takes the whole batch (on a GPU micro-batches "
                         "only save memory: sciml bench fno-step)")
    lr: float = spec(1e-3, gt=0.0)
    weight_decay: float = spec(1e-4, ge=0.0, help="decoupled (AdamW); 0: plain Adam")
    schedule: EpochSchedule = spec(factory=EpochSchedule, help="the learning-rate schedule (a PINN's keys), every "
                                                               "and warmup in epochs")
    average: AverageConfig = field(default_factory=AverageConfig)
    loss: Literal["rel_l2", "h1"] = "rel_l2"
    terms: LossTerms = spec(factory=LossTerms, help="weights of the data and the physics terms (pde, boundary, "
                                                              "energy, preconditioned)")
    autodiff: Literal["taylor", "nested"] = spec("taylor", help="derivatives of the decoded field in the physics "
                                                 "terms and derived fields: the Taylor engine, or nested jvp (the "
                                                 "reference, for `sciml bench fno-step` comparisons)")
    checkpoint_every: int = spec(10, ge=1, help="epochs between `latest` checkpoints")
    augment: Literal["none", "dihedral"] = spec(
        "none", help="dihedral: each training sample turned by a random one of the square's 8 symmetries (rotations "
                     "by quarter turns, reflections), inputs and outputs alike, for an operator that commutes with "
                     "them (Darcy with a constant source, the plate with the same edges all round, on the unit "
                     "square); a 2-D tensor grid of equal axes. With data.n_labelled the data term's labelled "
                     "batches are turned (no other sample's output is read), and the physics terms' inputs each "
                     "step")

    window: int | None = spec(
        None, ge=1, help="recurrent: train on windows of this many predicted steps, each sample's window starting at "
                         "a random step of its trajectory (the inputs the data.t_in steps before it, from the data), "
                         "so that a step's rollout is window / data.t_out of the whole one; evaluation and prediction "
                         "still roll out data.t_out steps. Default: the whole rollout")

    def check(self):
        if self.schedule.warmup and self.schedule.warmup >= self.epochs:
            raise Invalid("schedule.warmup", f"{self.schedule.warmup} epochs of warm-up leave none of the "
                                             f"{self.epochs} epochs (training.epochs) after it")
        if not (self.terms.data > 0 or self.terms.physics):
            raise Invalid("terms", "every weight is 0: give data or a physics term a positive weight")
        if self.average.type != "none" and self.average.start >= self.epochs:
            raise Invalid("average.start", f"{self.average.start} leaves no epoch to average of the {self.epochs} "
                                           f"(training.epochs)")

    def micro(self, backend: str) -> int | None:
        """The micro-batch on JAX backend ``backend`` (``jax.default_backend()``): ``micro_batch`` itself, or its
        entry for the backend (None, the whole batch, where the mapping names none)."""
        m = self.micro_batch
        return next((size for name, size in m.items() if name == backend), None) if isinstance(m, dict) else m


@dataclass
class EvaluationConfig:
    every: int = spec(1, ge=1, help="epochs between test-error rows in metrics.csv")
    batch_size: int = spec(50, ge=1)
    plots: int = spec(1, ge=0, help="test samples plotted per resolution")
    last_k: int = spec(5, ge=1, help="the summary gives the mean, std, min and max of the test error over the "
                                     "last k evaluations (rows of metrics.csv) next to the final one")
    decoded: bool = spec(False, help="also score each finer test grid (data.super_resolution) by the operator "
                                     "run on the training grid (the finer inputs subsampled to it) with its output "
                                     "decoded at the finer points (rel_l2_<s>_decoded; model.type fno, a finer grid "
                                     "that holds the training grid's points)")
    estimate: bool = spec(False, help="also report the physics' per-sample error estimate on each test grid, its "
                                      "mean (estimate_<s>) and its rank correlation with the true errors "
                                      "(estimate_spearman_<s>; a generator with physics: plate, darcy; model.type "
                                      "fno or deeponet)")


@dataclass
class FnoCase:
    """A neural operator (an FNO, or a DeepONet: ``model.type``) trained on data from a classical solver or a file."""

    case: str = spec(help="name of the case (the run folder is runs/<case>/...)")
    solver: Literal["fno"] = spec(help="fno")
    data: DataConfig = spec(help="the dataset")
    seed: int = spec(0, ge=0, help="initialisation and shuffling")
    dtype: Literal["float32", "float64", "bfloat16"] = spec(
        "float32", help="bfloat16: bfloat16 compute, float32 parameters, optimizer, loss and FFTs")
    model: ModelConfig = field(default_factory=ModelConfig)
    training: TrainingConfig = field(default_factory=TrainingConfig)
    evaluation: EvaluationConfig = field(default_factory=EvaluationConfig)
    parallel: ParallelConfig = field(default_factory=ParallelConfig)

    @property
    def source(self) -> Generator:
        """What makes the data (:meth:`DataConfig.source`): a file's grid has ``data.dims`` axes, by default as
        many as the model's modes."""
        return self.data.source(self.data.dims or len(self.model.modes))

    @property
    def kind(self) -> ModelKind:
        """What the model's type reads and needs (:data:`MODELS`)."""
        return MODELS[self.model.type]

    @property
    def model_dims(self) -> int:
        """Axes the FNO transforms: the generator's spatial axes, plus time for ``space_time``."""
        return self.source.dims + (self.model.type == "space_time")

    def model_shape(self) -> list[int]:
        """The training grid the FNO sees (without padding)."""
        shape = [self.data.resolution] * self.source.dims
        return shape + [self.data.t_out] if self.model.type == "space_time" else shape

    def padding(self) -> list[int]:
        p = self.model.padding
        return [p] * self.model_dims if isinstance(p, int) else list(p)

    def check(self):
        gen, m, kind = self.source, self.model, self.kind
        if kind.trajectory and not gen.trajectory:
            raise Invalid("model.type", f"{m.type!r} needs a time-dependent generator (vorticity), "
                                        f"not {gen.name!r}")
        if gen.grid not in kind.grids:
            raise Invalid("data.grid", f"model.type {m.type} needs a tensor grid ({' or '.join(kind.grids)}); a "
                                       f"point set ({self.data.grid!r}) trains model.type deeponet")
        foreign = foreign_keys(m)
        if foreign:
            owner = next(t for t, k in MODELS.items() if foreign[0] in k.keys)
            raise Invalid(f"model.{foreign[0]}", f"is a key of model.type {owner}, not of {m.type}")
        if self.data.file is not None and not self.data.points and self.data.dims is None and not kind.fourier:
            raise Invalid("data.dims", f"give the grid axes of the file's arrays (model.type {m.type} has no "
                                       f"model.modes to count them)")
        if kind.fourier:
            self._check_fourier(gen)
        else:
            self._check_sensors(gen)
        if m.vanish_on_edges and (not kind.edges or gen.grid != "closed"):
            raise Invalid("model.vanish_on_edges", f"needs model.type fno or deeponet on a closed grid, not {m.type} "
                                                   f"on a {gen.grid} grid ({gen.name})")
        if self.training.augment != "none" and (gen.grid == "points" or gen.dims != 2 or kind.trajectory):
            raise Invalid("training.augment", f"{self.training.augment} turns the samples of a 2-D tensor grid, not "
                                              f"{gen.name!r}'s ({gen.dims}-D, {gen.grid}"
                                              f"{', a trajectory' if kind.trajectory else ''})")
        tensors = [f for f in self.data.params.get("fields", ()) if f != "w"] if gen.name == "plate" else []
        if self.training.augment != "none" and tensors:
            raise Invalid("training.augment", f"{self.training.augment} turns the grid alone, and the plate's "
                                              f"{', '.join(map(str, tensors))} (data.params.fields) are components "
                                              f"of a tensor that a turn mixes: give fields [w]")
        if gen.grid == "points" and self.training.loss == "h1":
            raise Invalid("training.loss", "h1 takes the derivatives of a periodic grid's series; a point set "
                                           "(data.grid) trains with rel_l2")
        self._check_training(gen)

    def _check_fourier(self, gen):
        """An FNO's modes and padding, on its grid."""
        m = self.model
        d = self.model_dims
        if len(m.modes) != d:
            raise Invalid("model.modes", f"expected {d} numbers (one per axis of the "
                                         f"{'x, y, t' if m.type == 'space_time' else f'{gen.dims}-D grid'}), "
                                         f"got {m.modes}")
        if not isinstance(m.padding, int) and len(m.padding) != d:
            raise Invalid("model.padding", f"expected one number or a list of {d}, got {m.padding}")
        shape = [n + p for n, p in zip(self.model_shape(), self.padding())]
        try:
            check_modes(m.modes, shape)
        except ValueError as e:
            raise Invalid("model.modes", f"{e} (data.resolution {self.data.resolution}"
                                         f"{' + padding' if any(self.padding()) else ''})") from None
        if m.type == "recurrent" and self.data.t_out % m.step:
            raise Invalid("model.step", f"must divide data.t_out = {self.data.t_out}")
        if m.type == "recurrent" and m.step > self.data.t_in:
            raise Invalid("model.step", f"must be <= data.t_in = {self.data.t_in}")

    def _check_sensors(self, gen):
        """A DeepONet's sensors: more than one per axis of the training grid; a CNN branch's convolutions fit them."""
        m = self.model
        n, stride = self.data.resolution, m.sensors
        if stride >= n:
            raise Invalid("model.sensors", f"a stride of {stride} leaves one sensor of the {n} points per axis "
                                           f"(data.resolution)")
        if m.conv and gen.grid == "points":
            raise Invalid("model.conv", "a CNN branch reads the sensors on a tensor grid, not a point set "
                                        f"({self.data.grid!r})")
        if m.conv:
            per_axis = len(range(0, n, stride))
            try:
                conv_shape([per_axis], len(m.conv), m.conv_kernel, m.conv_stride)
            except ValueError as e:
                raise Invalid("model.conv", f"{e} (the {per_axis} sensors per axis of data.resolution {n} at "
                                            f"model.sensors {stride})") from None

    def _check_training(self, gen):
        m = self.model
        w = self.training.window
        if w is not None and (m.type != "recurrent" or w > self.data.t_out or w % m.step):
            raise Invalid("training.window", f"{w}: windows of a recurrent model's rollout, a multiple of model.step "
                                             f"({m.step}) up to data.t_out ({self.data.t_out}); model.type is "
                                             f"{m.type}")
        if w is not None and (self.training.terms.physics or self.data.n_labelled is not None):
            raise Invalid("training.window", "windows train the data term on every sample: no physics terms, no "
                                             "data.n_labelled")
        if self.training.batch_size > self.data.n_train:
            raise Invalid("training.batch_size", f"{self.training.batch_size} is more than data.n_train = "
                                                 f"{self.data.n_train}")
        labelled = self.data.n_labelled
        if labelled is not None and labelled > self.data.n_train:
            raise Invalid("data.n_labelled", f"{labelled} is more than data.n_train = {self.data.n_train}")
        if labelled is not None and not self.training.terms.data:
            raise Invalid("data.n_labelled", "labels samples for the data term, whose weight training.terms.data is "
                                             "0")
        micro = self.training.micro_batch
        for backend, size in (micro.items() if isinstance(micro, dict) else [(None, micro)]):
            if size is not None and self.training.batch_size % size:
                raise Invalid("training.micro_batch" + (f".{backend}" if backend else ""),
                              f"{size} does not divide training.batch_size = {self.training.batch_size}")
        if self.training.terms.physics:
            self._check_physics(gen)
        if self.evaluation.decoded:
            self._check_decoded(gen)
        if self.evaluation.estimate and (self.data.generator not in PHYSICS or not self.kind.field):
            raise Invalid("evaluation.estimate", f"needs a generator with physics ({', '.join(PHYSICS)}) "
                                                 f"and model.type {' or '.join(FIELD_TYPES)}, not "
                                                 f"{self.data.generator or 'a file'} and {self.model.type!r}")
        if self.data.physics_resolution and not self.training.terms.physics:
            raise Invalid("data.physics_resolution", "is the grid of the physics terms, and the loss has none "
                                                     "(training.terms)")
        if self.data.physics_resolution and self.training.terms.data and labelled is None:
            raise Invalid("data.physics_resolution", "the data term would read the labels on that grid: give "
                                                     "data.n_labelled (the data term on its own batch at "
                                                     "data.resolution) or a physics-only loss")
        if self.data.n_physics:
            self._check_unsolved(gen, labelled)
        mesh = self.parallel.mesh
        if mesh is not None and len(mesh) == 2 and not self.kind.fourier and mesh[1] > 1:
            raise Invalid("parallel.mesh", f"model.type {m.type} has no channels to split: give a data axis alone")
        if mesh is not None and len(mesh) == 2 and m.width % mesh[1]:
            raise Invalid("parallel.mesh", f"the channel axis ({mesh[1]}) must divide model.width ({m.width})")
        self._check_params(gen)

    def _check_decoded(self, gen):
        if self.model.type != "fno":
            raise Invalid("evaluation.decoded", f"needs model.type fno (its Fourier series decoded on the finer "
                                                f"grid), not {self.model.type!r}")
        n = self.data.resolution
        for r in self.data.super_resolution:  # each subsamples the solver's grid, not necessarily to this one
            if factor(r, n, gen.grid) is None:
                raise Invalid("evaluation.decoded", f"the test grid of {r} points does not hold the training grid's "
                                                    f"{n} ({gen.grid} grids)")

    def _check_unsolved(self, gen, labelled: int | None):
        if not self.training.terms.physics:
            raise Invalid("data.n_physics", "are inputs for the physics terms, and the loss has none (training.terms)")
        if self.training.terms.data and labelled is None:
            raise Invalid("data.n_physics", "inputs have no solution for the data term: give data.n_labelled (the "
                                            "data term on its own batch of solved samples) or a physics-only loss")
        if gen.inputs is None:
            raise Invalid("data.n_physics", f"generator {gen.name!r} cannot draw inputs without solving them")

    def _check_physics(self, gen):
        if gen.name not in PHYSICS:
            raise Invalid("training.terms", f"physics terms need a generator with physics "
                                            f"({', '.join(PHYSICS)}), not {gen.name!r}")
        if not self.kind.field:
            raise Invalid("training.terms", f"physics terms need model.type {' or '.join(FIELD_TYPES)}, not "
                                            f"{self.model.type!r}")
        has = [t for t in PHYSICS_TERMS if t in PHYSICS[gen.name].TERMS]
        lacking = [t for t in PHYSICS_TERMS if getattr(self.training.terms, t) and t not in has]
        if lacking:
            raise Invalid(f"training.terms.{lacking[0]}", f"the {gen.name} physics has no such term (it has "
                                                          f"{', '.join(has)})")
        if self.training.terms.energy and not self.model.vanish_on_edges:
            raise Invalid("training.terms.energy", "the energy is bounded below only among fields that vanish on "
                                                   "the edges: set model.vanish_on_edges")
        first = PHYSICS[gen.name].first_field
        fields = self.data.params.get("fields", [first])
        if first is not None and (not fields or fields[0] != first):
            raise Invalid("data.params.fields", f"the physics reads {first} from the first output channel; got "
                                                f"{fields}")

    def _check_params(self, gen):
        if gen.generate is None:  # a file's: DataConfig.check refuses parameters
            return
        try:
            known = gen.parameters()
        except ImportError:  # the generator is not installed: datagen will say so
            return
        if any(p.kind == p.VAR_KEYWORD for p in known.values()):
            return
        for key in self.data.params:
            if key not in known:
                hint = suggest(key, known, f"; parameters are {sorted(known)}")
                raise Invalid(f"data.params.{key}", f"unknown parameter of generator {gen.name!r}" + hint)
        if gen.validates:  # the values too, by a call that draws no sample
            try:
                gen.generate(0, self.data.resolution, self.data.seed, **self.data.params)
            except (ValueError, TypeError) as e:
                raise Invalid("data.params", str(e)) from None
