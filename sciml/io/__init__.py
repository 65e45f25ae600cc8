"""Files: atomic writes, HDF5 checkpoints, and reading the HDF5 files a user hands us (validated, checksums)."""
from . import atomic, checkpoint, hdf5

__all__ = ["atomic", "checkpoint", "hdf5"]
