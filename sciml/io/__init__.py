"""Files: atomic writes, HDF5 checkpoints and fields."""
from . import atomic, checkpoint

__all__ = ["atomic", "checkpoint"]
