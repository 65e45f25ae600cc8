"""Fourier neural operators trained on data from classical solvers (Li et al., ICLR 2021)."""
from .config import FnoCase
from .run import datagen, train

__all__ = ["FnoCase", "datagen", "train"]
