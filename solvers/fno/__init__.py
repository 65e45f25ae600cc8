"""Fourier neural operators trained on data from classical solvers (Li et al., ICLR 2021)."""
from .config import FnoCase
from .data import datagen
from .run import train

__all__ = ["FnoCase", "datagen", "train"]
from .export import export_model  # noqa: E402

__all__ += ["export_model"]
