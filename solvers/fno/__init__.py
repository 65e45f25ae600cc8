"""Neural operators trained on data from classical solvers or files: Fourier neural operators (Li et al., ICLR 2021)
and DeepONets (Lu et al., Nature Machine Intelligence 2021), ``model.type``."""
from sciml.solver import Solver

from .config import FnoCase
from .data import datagen
from .export import derived_model, estimate_model, export_model
from .run import train

SOLVER = Solver("fno", FnoCase, train, datagen=datagen, export_model=export_model, derived_model=derived_model,
                estimate_model=estimate_model)

__all__ = ["FnoCase", "SOLVER", "datagen", "derived_model", "estimate_model", "export_model", "train"]
