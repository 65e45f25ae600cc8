"""FNO datasets in HDF5: written once by ``sciml datagen``, streamed in minibatches by training.

Layout of one file::

    /train/inputs   (n_train, s..., c_in)     float32, chunked one sample per chunk, gzip + shuffle
    /train/outputs  (n_train, s..., c_out)
    /train/grid     (s..., d)                 coordinates in [0, 1]
    /test/<r>/{inputs, outputs, grid}         the test samples on each test grid r (training grid first)
    /train_physics/{inputs, outputs, grid}    with data.physics_resolution or data.n_physics: the physics terms'
                                              inputs on their grid, the training samples then n_physics unsolved
                                              inputs (their outputs NaN: no solution exists to read)
    attrs: generator, params (JSON), seed, n_train, n_test, resolution, resolutions, solve_resolution,
           t_in, t_out, chunk, sciml_version, created, settings (JSON of everything that shapes the data);
           with n_test_super also n_test_super and super_solve_resolution; with n_physics also n_physics

Every sample is solved once on the solver's grid and subsampled to each resolution, so a test sample at
the training resolution and at a finer one is the same function. With ``data.n_test_super`` the finer test
grids hold that many samples of their own instead, solved on the finest of them: the training data can then
be solved on the training grid itself (:meth:`DataConfig.sample_sets`). Each chunk is committed as it completes
(:mod:`.parts`: an interrupted ``datagen`` continues after the last complete chunk, and gives the file one
uninterrupted run gives); the file is assembled from them and renamed into place at the end. SIGTERM or
SIGINT while solving stops at once (the worker processes with it): the chunks committed stay, the chunks in
flight are lost, and :class:`~sciml.errors.Interrupted` says how many were kept (the CLI exits 143 or 130). Its datasets
carry HDF5's Fletcher-32 checksum per chunk, and every way of reading it (:func:`check`, :class:`Split`)
turns a missing, truncated, damaged or foreign file into one line naming it.
"""
from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import h5py
import numpy as np
from tqdm.auto import tqdm

from sciml import signals
from sciml.errors import BadFile, ConfigError, Interrupted, UserError
from sciml.io import hdf5
from sciml.io.atomic import atomic_h5
from sciml.version import __version__

from . import files
from . import parts as dataset_parts
from .config import DataConfig, FnoCase, SampleSet
from .generators import GENERATORS, coordinates, factor, subsample

_DTYPE = np.float32
PHYSICS_GROUP = "train_physics"  # the physics terms' inputs on data.physics_grid (data.physics_resolution, n_physics)


def settings(cfg: DataConfig) -> dict:
    """Everything that determines the data; a file made with other settings is not reused (one made with
    ``data.physics_resolution`` also serves the case without it, and one with ``data.n_physics`` unsolved inputs
    a case with as many or fewer: :func:`check`). A dataset from ``data.file``: :func:`.files.settings`."""
    if cfg.generator is None:
        return files.settings(cfg)
    return {"generator": cfg.generator, "params": cfg.params, "seed": cfg.seed, "n_train": cfg.n_train,
            "n_test": cfg.n_test, "resolutions": cfg.resolutions, "solve_resolution": cfg.solver_grid,
            "chunk": cfg.chunk, **({"t_in": cfg.t_in, "t_out": cfg.t_out}
                                   if GENERATORS[cfg.generator].trajectory else {}),
            **({"n_test_super": cfg.n_test_super} if cfg.n_test_super else {})}


@dataclass(frozen=True)
class Chunk:
    """Samples ``first .. first + n - 1`` of sample set ``set`` (:meth:`DataConfig.sample_sets`), solved on
    ``grid``; ``index`` numbers its part and derives its seed."""

    index: int
    n: int
    grid: int
    first: int
    set: int


def chunks(cfg: DataConfig) -> list[Chunk]:
    """Every chunk of the dataset: each sample set cut into ``cfg.chunk`` samples, the sets one after another."""
    out: list[Chunk] = []
    for k, s in enumerate(cfg.sample_sets()):
        out += [Chunk(len(out) + j, min(cfg.chunk, s.n - first), s.grid, first, k)
                for j, first in enumerate(range(0, s.n, cfg.chunk))]
    return out


# (sample set's kind, split) -> (first sample of the set, samples, first row of the split they fill)
_ROWS = {
    ("main", "train"): lambda c: (0, c.n_train, 0),
    ("main", "test"): lambda c: (c.n_train, c.n_test, 0),
    ("main", "physics"): lambda c: (0, c.n_train, 0),
    ("super", "test"): lambda c: (0, c.n_test_super or 0, 0),
    ("unsolved", "physics"): lambda c: (0, c.n_physics or 0, c.n_train),
}


def _rows(cfg: DataConfig, sample_set: int, split: str) -> tuple[int, int, int]:
    """Where ``split`` ("train", "test" or "physics") takes samples from sample set ``sample_set``: the first of
    them, how many, and the split's row of the first."""
    kind = cfg.sample_sets()[sample_set].kind
    return _ROWS.get((kind, split), lambda c: (0, 0, 0))(cfg)


def has_physics_group(cfg: DataConfig) -> bool:
    """Whether the dataset holds the physics terms' inputs apart (:data:`PHYSICS_GROUP`)."""
    return bool(cfg.physics_resolution or cfg.n_physics)


def chunk_seed(seed: int, index: int) -> int:
    """The generator's seed for chunk ``index`` of a dataset with seed ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def _create(group: h5py.Group, name: str, n: int, sample: np.ndarray) -> h5py.Dataset:
    return group.create_dataset(name, shape=(n, *sample.shape[1:]), dtype=_DTYPE,
                                chunks=(1, *sample.shape[1:]), compression="gzip", compression_opts=4,
                                shuffle=True, fletcher32=True, fillvalue=np.nan)


def _solve_chunk(cfg: DataConfig, chunk: Chunk, progress=None) -> tuple[np.ndarray, np.ndarray | None]:
    """Inputs and outputs of ``chunk`` on its solver's grid (its own seed: chunks are independent); the inputs
    alone (outputs None) for a chunk of unsolved inputs (``data.n_physics``)."""
    gen = cfg.source(0)  # a generator's dataset (DataConfig.check)
    S = chunk.grid
    solved = cfg.sample_sets()[chunk.set].solved
    draw = gen.generate if solved else gen.inputs
    assert gen.split is not None, "a generator's chunk"
    assert draw is not None, "FnoCase.check(): data.n_physics needs a generator that draws inputs alone"
    arrays = draw(chunk.n, S, chunk_seed(cfg.seed, chunk.index), progress, **cfg.params)
    x, y = gen.split(arrays, cfg.t_in, cfg.t_out)
    if x.shape[1:1 + gen.dims] != (S,) * gen.dims:
        raise RuntimeError(f"generator {cfg.generator} returned shape {x.shape} for resolution {S}")
    return x, y


def _solve_part(cfg: DataConfig, parts: dataset_parts.Parts, chunk: Chunk, progress=None) -> int:
    """Solve ``chunk`` and commit it to its part; the number of samples."""
    x, y = _solve_chunk(cfg, chunk, progress)
    parts.save(chunk.index, x, y)
    return len(x)


def _solve_parts(cfg: DataConfig, parts: dataset_parts.Parts, todo: list[Chunk], progress, workers: int) -> None:
    """Commit the chunks ``todo``; with ``workers > 1`` solved in that many processes (for the CPU-bound
    generators, each using about one core: Darcy's sparse solves, the spectral solvers' FFTs), giving the same
    arrays as one process."""
    if workers <= 1 or len(todo) <= 1:
        for chunk in todo:
            _solve_part(cfg, parts, chunk, progress)
        return
    import multiprocessing

    # leaving the block (a signal's exception included) terminates the workers: none outlives the command
    with multiprocessing.get_context("spawn").Pool(workers, initializer=_worker_init) as pool:
        for n in pool.imap(_solve_part_args, [(cfg, parts, chunk) for chunk in todo]):
            if progress is not None:
                progress(n)


def _solve_part_args(args: tuple) -> int:
    return _solve_part(*args)


def _worker_init() -> None:
    """A worker leaves SIGINT (Ctrl-C reaches the whole process group) to the command, which ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Stop(Exception):
    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _stopping(path: str, parts: dataset_parts.Parts, total: int):
    """SIGTERM and SIGINT stop the solving at once (module notes): :class:`~sciml.errors.Interrupted` names the
    chunks kept, counted once the workers have ended (:func:`sciml.signals.handling`: main thread only)."""
    def stop(signum, frame):
        raise _Stop(signum)

    try:
        with signals.handling(stop):
            yield
    except _Stop as e:
        kept = sum(parts.done(i) for i in range(total))
        raise Interrupted(f"stopped by {signal.Signals(e.signum).name}: {kept} of {total} chunks of {path} are kept "
                          f"in {parts.folder}; the same command continues from them", e.signum) from None


def write(cfg: DataConfig, path: str, progress=None, workers: int = 1, fresh: bool = False) -> None:
    """Run the generator chunk by chunk, committing each, and assemble the dataset atomically at ``path``.

    Chunks already committed by an interrupted run with the same settings are kept (``fresh``: solve them
    all again). ``progress``: called with the number of samples just finished (by the generator, or after
    each chunk when ``workers > 1`` processes solve the chunks, or for the chunks kept).
    """
    gen = cfg.source(0)  # a generator's (a file's dataset: _copy)
    sets: list[SampleSet] = cfg.sample_sets()
    strides: dict[tuple[int, int], int] = {}  # (sample set, test grid) -> stride from the set's solver grid
    for k, s in enumerate(sets):
        for r in s.serves:
            stride = factor(s.grid, r, gen.grid)
            assert stride is not None, "DataConfig.check(): each grid subsamples its solver's"
            strides[k, r] = stride
    if has_physics_group(cfg):  # the training (and unsolved) inputs on the physics terms' grid
        for k, s in enumerate(sets):
            if s.kind == "super":
                continue
            stride = factor(s.grid, cfg.physics_grid, gen.grid)
            assert stride is not None, "DataConfig.check(): the physics grid subsamples the solver's"
            strides[k, cfg.physics_grid] = stride
    parts = dataset_parts.of(path, {**settings(cfg), "n_physics": cfg.n_physics})
    if fresh:
        parts.clear()
    every = chunks(cfg)
    todo = [c for c in every if not parts.done(c.index)]
    if progress is not None and len(todo) < len(every):
        progress(sum(c.n for c in every if c not in todo))
    # the finest grids first: their long solves start first when processes share the chunks
    with _stopping(path, parts, len(every)):
        _solve_parts(cfg, parts, sorted(todo, key=lambda c: -c.grid), progress, workers)
    assembled = os.path.join(parts.folder, "dataset.h5")
    with atomic_h5(assembled) as f:
        f.attrs.update(_attrs(cfg, gen.name, gen.grid, params=json.dumps(cfg.params),
                              solve_resolution=sets[0].grid,
                              **({"n_test_super": cfg.n_test_super, "super_solve_resolution": sets[1].grid}
                                 if cfg.n_test_super else {}),
                              **({"physics_resolution": cfg.physics_resolution} if cfg.physics_resolution else {}),
                              **({"n_physics": cfg.n_physics} if cfg.n_physics else {})))
        names = {("train", cfg.resolution): "train", **{("test", r): f"test/{r}" for r in cfg.resolutions},
                 **({("physics", cfg.physics_grid): PHYSICS_GROUP} if has_physics_group(cfg) else {})}
        groups = {key: _group(f, name, key[1], gen.dims, gen.grid) for key, name in names.items()}
        for chunk in every:
            x, y = parts.load(chunk.index) or _solve_chunk(cfg, chunk)
            ids = np.arange(chunk.first, chunk.first + len(x))
            for (split, r), g in groups.items():
                offset, size, to = _rows(cfg, chunk.set, split)
                keep = (ids >= offset) & (ids < offset + size)
                if (chunk.set, r) not in strides or not keep.any():
                    continue
                rows = ids[keep] - offset + to
                total = cfg.physics_inputs if split == "physics" else size
                for name, a in (("inputs", x), ("outputs", y)):
                    if a is None:  # unsolved inputs: their rows of the outputs keep the fill value, NaN
                        continue
                    a = subsample(a[keep], strides[chunk.set, r], gen.dims)
                    ds = g[name] if name in g else _create(g, name, total, a)
                    ds[rows[0]:rows[-1] + 1] = a.astype(_DTYPE)
    os.replace(assembled, path)
    parts.clear()


def _attrs(cfg: DataConfig, generator: str, grid_kind: str, **more) -> dict:
    """A dataset's attributes (module notes): what made it (a generator's name, or ``file``), its counts and
    grids, the settings it was made with, and ``more`` of its own."""
    return {"generator": generator, "seed": cfg.seed, "n_train": cfg.n_train, "n_test": cfg.n_test,
            "resolution": cfg.resolution, "resolutions": cfg.resolutions, "t_in": cfg.t_in, "t_out": cfg.t_out,
            "chunk": cfg.chunk, "grid_kind": grid_kind, "sciml_version": __version__,
            "settings": json.dumps(settings(cfg)), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **more}


def _group(f: h5py.File, name: str, resolution: int, dims: int, grid_kind: str,
           points: np.ndarray | None = None) -> h5py.Group:
    """The split ``name`` of a dataset on a grid of ``resolution`` points per axis, with its coordinates (a point
    set's ``points``, ``(n_points, d)``)."""
    g = f.create_group(name)
    g["grid"] = (coordinates(resolution, dims, grid_kind) if points is None else points).astype(_DTYPE)
    g.attrs["resolution"] = resolution
    return g


def solve_test(cfg: DataConfig, resolution: int, **params) -> tuple[np.ndarray, np.ndarray]:
    """The test samples at ``resolution`` solved again with the generator's parameters changed by ``params``
    (e.g. the plate's ``fields``: outputs the dataset does not hold), ``(inputs, outputs)`` in the test split's
    order. A sample depends on its chunk's seed and its index only (the generators' contract), so these are the
    same inputs as the dataset's."""
    gen = cfg.source(0)  # a generator's (a file's dataset is not solved again)
    cfg = replace(cfg, params={**cfg.params, **params})
    k, s = next((k, s) for k, s in enumerate(cfg.sample_sets()) if resolution in s.serves)
    stride = factor(s.grid, resolution, gen.grid)
    assert stride is not None, "DataConfig.check(): each grid subsamples its solver's"
    offset, size, _ = _rows(cfg, k, "test")
    xs, ys = [], []
    for chunk in chunks(cfg):
        ids = np.arange(chunk.first, chunk.first + chunk.n)
        keep = (ids >= offset) & (ids < offset + size)
        if chunk.set != k or not keep.any():
            continue
        x, y = _solve_chunk(cfg, chunk)
        assert y is not None, "a test sample is solved"
        xs.append(subsample(x[keep], stride, gen.dims))
        ys.append(subsample(y[keep], stride, gen.dims))
    return np.concatenate(xs), np.concatenate(ys)


def datagen(cfg: FnoCase, quiet: bool = False, force: bool = False, workers: int = 1) -> str:
    """Write the case's dataset to ``data.path`` (kept if it exists with the same settings, unless ``force``);
    ``workers`` processes solve the chunks in parallel (the same file as one process makes). An interrupted
    run continues from its committed chunks; ``force`` makes every chunk again."""
    path = cfg.data.path
    if os.path.exists(path) and not force:
        check(cfg.data, path, remedy="add --force to overwrite it")
        if not quiet:
            print(f"{path} is up to date (use --force to make it again)")
        return path
    if cfg.data.file is not None:
        _copy(cfg, path)
        if not quiet:
            print(f"{path}: {cfg.data.n_train} training and {cfg.data.n_test} test samples from {cfg.data.file}")
        return path
    sets = cfg.data.sample_sets()
    with tqdm(total=sum(s.n for s in sets), disable=quiet, unit="sample",
              desc=f"{cfg.data.generator} {' + '.join(str(s.grid) for s in sets)}",
              dynamic_ncols=True) as bar:
        write(cfg.data, path, progress=bar.update, workers=workers, fresh=force)
    return path


def _copy(cfg: FnoCase, path: str) -> None:
    """The dataset of ``data.file`` at ``path``, atomically (:func:`.files.splits`), in this module's layout."""
    d = cfg.data
    source, splits, points = files.splits(cfg)
    with atomic_h5(path) as f:
        f.attrs.update(_attrs(d, "file", d.grid_kind, params=json.dumps({}), source=os.path.abspath(source)))
        for name, r, x, y in splits:
            g = _group(f, name, r, cfg.source.dims, d.grid_kind, points)
            for key, a in (("inputs", x), ("outputs", y)):
                _create(g, key, len(a), a)[...] = a.astype(_DTYPE)


class MissingDataset(ConfigError):
    """``data.path`` does not exist; names the ``sciml datagen`` command that makes it."""

    def __init__(self, path: str, case_file: str = "", case: str = "", overrides=()):
        self.path, self.case_file, self.case = path, case_file, case
        command = case_file or (f"cases/{case}.yaml" if case and os.path.exists(f"cases/{case}.yaml")
                                else "CASE.yaml")
        command = " ".join([command, *(shlex.quote(o) for o in overrides)])
        super().__init__(f"dataset {path} does not exist; make it with `sciml datagen {command}`",
                         key="data.path", source=case_file)

    def within(self, source: str, overrides=()) -> MissingDataset:
        return self if self.source else MissingDataset(self.path, source, self.case, overrides)


_AGAIN = "make it again with `sciml datagen CASE.yaml --force`"


def check(cfg: DataConfig, path: str | None = None, case: str = "", remedy: str = _AGAIN) -> dict:
    """Open ``path`` (default ``cfg.path``) and check it is a whole dataset made with this case's settings
    (every split there, with the samples its settings say); its attrs."""
    path = path or cfg.path
    if not os.path.exists(path):
        raise MissingDataset(path, case=case)
    with hdf5.opened(path, "dataset", f"; {remedy}") as f:
        attrs = dict(f.attrs)
        try:
            stored = json.loads(attrs["settings"])
        except (KeyError, TypeError, ValueError):
            raise BadFile(f"{path}: not a sciml dataset (no settings in its attributes); {remedy}") from None
        wanted = json.loads(json.dumps(settings(cfg)))
        diff = [k for k in wanted if stored.get(k) != wanted[k]]
        if diff:
            k = diff[0]
            raise UserError(f"{path} was made with other settings ({k}: {stored.get(k)!r}, the case asks for "
                            f"{wanted[k]!r}); {remedy}")
        physics = [(PHYSICS_GROUP, cfg.n_train + _physics_held(cfg, path, attrs, remedy))] \
            if has_physics_group(cfg) else []
        tests = [(f"test/{r}", _rows(cfg, k, "test")[1]) for k, s in enumerate(cfg.sample_sets()) for r in s.serves]
        for group, n in [("train", cfg.n_train), *physics, *tests]:
            for name in ("inputs", "outputs", "grid"):
                if f"{group}/{name}" not in f:
                    raise BadFile(f"{path}: damaged dataset: {group}/{name} is missing; {remedy}")
                if name != "grid" and f[group][name].shape[0] != n:
                    raise BadFile(f"{path}: damaged dataset: {group}/{name} holds {f[group][name].shape[0]} "
                                  f"samples, its settings say {n}; {remedy}")
    return attrs


def _physics_held(cfg: DataConfig, path: str, attrs: dict, remedy: str) -> int:
    """The unsolved inputs the file holds after the training samples in :data:`PHYSICS_GROUP`, checked to be on
    the case's physics grid and at least the ``data.n_physics`` it asks for (a file with more serves it)."""
    held = int(attrs.get("n_physics", 0))
    grid = attrs.get("physics_resolution") or (attrs.get("resolution") if held else None)
    if grid != cfg.physics_grid:
        keys = "data.physics_resolution" + (", data.n_physics" if cfg.n_physics else "")
        raise UserError(f"{path} holds no training inputs on the {cfg.physics_grid}-point grid ({keys}); {remedy}")
    if held < (cfg.n_physics or 0):
        raise UserError(f"{path} holds {held} unsolved inputs for the physics terms, the case asks for "
                        f"data.n_physics = {cfg.n_physics}; {remedy}")
    return held


class Split:
    """One split of a dataset (``train``, ``test/<r>`` or :data:`PHYSICS_GROUP`), read in minibatches; of the
    group's samples the first ``n`` (default all).

    Small splits (under ``memory_limit`` bytes) are read whole once; larger ones are read batch by batch
    with h5py slicing (sorted indices, then put in the shuffled order).
    """

    def __init__(self, path: str, group: str, memory_limit: float = 2**30, n: int | None = None):
        self.path, self.group = path, group
        with self._open() as f:
            g = f[group]
            self.n = g["inputs"].shape[0] if n is None else min(n, g["inputs"].shape[0])
            self.shapes = (g["inputs"].shape[1:], g["outputs"].shape[1:])
            self.grid = g["grid"][()]
            nbytes = self.n * (np.prod(self.shapes[0]) + np.prod(self.shapes[1])) * 4
            self._arrays = (g["inputs"][:self.n], g["outputs"][:self.n]) if nbytes <= memory_limit else None

    def _open(self):
        return hdf5.opened(self.path, "dataset", f"; {_AGAIN}")

    def __len__(self) -> int:
        return self.n

    def read(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Samples ``index`` (any order) as ``(inputs, outputs)``."""
        index = np.asarray(index)
        if self._arrays is not None:
            return self._arrays[0][index], self._arrays[1][index]
        order = np.argsort(index)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        with self._open() as f:
            g = f[self.group]
            return g["inputs"][index[order]][inverse], g["outputs"][index[order]][inverse]

    def batches(self, batch_size: int, rng: np.random.Generator | None = None, drop_last: bool = False,
                rows: slice = slice(None)) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Minibatches in a random order drawn from ``rng`` (in file order if None); of each, only ``rows`` are
        read (a process's share of a global batch)."""
        order = rng.permutation(self.n) if rng is not None else np.arange(self.n)
        stop = self.n - self.n % batch_size if drop_last else self.n
        for i in range(0, stop, batch_size):
            yield self.read(order[i:i + batch_size][rows])

    def num_batches(self, batch_size: int, drop_last: bool = False) -> int:
        return self.n // batch_size if drop_last else -(-self.n // batch_size)

    def moments(self, batch_size: int = 100, n: int | None = None) -> tuple[np.ndarray, ...]:
        """Per-channel mean and standard deviation of inputs and outputs (float64 sums) of the first ``n`` samples
        (default: all)."""
        sums: list[np.ndarray] = []
        count = 0
        n = self.n if n is None else n
        for i in range(0, n, batch_size):
            x, y = self.read(np.arange(i, min(i + batch_size, n)))
            parts = []
            for a in (x, y):
                a = a.reshape(-1, a.shape[-1]).astype(np.float64)
                parts += [a.sum(0), (a * a).sum(0)]
            sums = [s + p for s, p in zip(sums, parts)] if sums else parts
            count += x[..., 0].size
        mx, my = sums[0] / count, sums[2] / count
        sx = np.sqrt(np.maximum(sums[1] / count - mx ** 2, 0.0))
        sy = np.sqrt(np.maximum(sums[3] / count - my ** 2, 0.0))
        return mx, sx, my, sy


def open_splits(path: str, resolutions: list[int]) -> tuple[Split, dict[int, Split]]:
    """The training split and the test split at each resolution."""
    return Split(path, "train"), {r: Split(path, f"test/{r}") for r in resolutions}


def physics_split(cfg: DataConfig, train: Split) -> Split:
    """The inputs the physics terms read (the epoch's minibatches): the training samples on
    ``data.physics_resolution``'s grid and the ``data.n_physics`` unsolved inputs, or ``train``."""
    return Split(cfg.path, PHYSICS_GROUP, n=cfg.physics_inputs) if has_physics_group(cfg) else train
