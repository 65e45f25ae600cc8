"""The parts of a dataset being generated: each chunk of samples committed to its own file as it completes.

``sciml datagen`` solves chunk ``i`` into ``<dataset>.parts/part-<i>.h5``, written atomically: its inputs and
outputs on the solver's grid (float32, the dataset's type), and in its attributes the dataset's settings
and the SHA-256 of the two arrays (:func:`sciml.io.hdf5.digest`). The dataset is then assembled from the
parts in order and the folder removed. Killed half-way and started again, ``datagen`` solves only the chunks
with no part (a part made with other settings counts as none); a damaged part (unreadable, or not matching
its checksum) is solved again after a one-line warning. Each chunk has its own seed, so the dataset is the
same whatever number of restarts or processes made it.
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass

import numpy as np

from sciml.errors import BadFile, warn
from sciml.io import hdf5
from sciml.io.atomic import atomic_h5

_DTYPE = np.float32


@dataclass(frozen=True)
class Parts:
    """The parts folder of dataset ``dataset``, for a dataset made with ``settings`` (JSON text)."""

    dataset: str
    settings: str

    @property
    def folder(self) -> str:
        return self.dataset + ".parts"

    def path(self, index: int) -> str:
        return os.path.join(self.folder, f"part-{index:05d}.h5")

    def done(self, index: int) -> bool:
        """Whether chunk ``index`` has a part made with these settings (its arrays are checked on :meth:`load`)."""
        if not os.path.exists(self.path(index)):
            return False
        try:
            with hdf5.opened(self.path(index), "dataset part") as f:
                return f.attrs.get("settings") == self.settings
        except BadFile as e:
            warn(f"{e}; solving chunk {index} again")
            return False

    def save(self, index: int, x: np.ndarray, y: np.ndarray | None) -> None:
        """Commit chunk ``index``: its inputs and outputs (None: inputs drawn without a solve)."""
        arrays = {"inputs": np.asarray(x, _DTYPE), **({} if y is None else {"outputs": np.asarray(y, _DTYPE)})}
        with atomic_h5(self.path(index)) as f:
            for name, a in arrays.items():
                f.create_dataset(name, data=a, compression="gzip", compression_opts=1, shuffle=True)
            f.attrs.update({"index": index, "settings": self.settings, "sha256": hdf5.digest(arrays.items())})

    def load(self, index: int) -> tuple[np.ndarray, np.ndarray | None] | None:
        """Chunk ``index``'s ``(inputs, outputs)`` (outputs None for unsolved inputs), or None (after a warning)
        if its part is damaged."""
        path = self.path(index)
        try:
            with hdf5.opened(path, "dataset part") as f:
                arrays = {name: f[name][()] for name in ("inputs", "outputs") if name != "outputs" or name in f}
                stored = f.attrs.get("sha256")
            if hdf5.digest(arrays.items()) != stored:
                raise BadFile(f"{path}: damaged dataset part: its arrays do not match the checksum stored in it")
        except BadFile as e:
            warn(f"{e}; solving chunk {index} again")
            return None
        return arrays["inputs"], arrays.get("outputs")

    def clear(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def of(dataset: str, settings: dict) -> Parts:
    return Parts(dataset, json.dumps(settings, sort_keys=True))
