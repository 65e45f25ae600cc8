"""Physics-informed neural networks: geometry and sampling, problem assembly, optimisers, the driver."""
from sciml.solver import Solver

from .config import PinnCase
from .datasets import datagen
from .output.export import export_model
from .problem import Problem, assemble, check
from .run import train

SOLVER = Solver("pinn", PinnCase, train, datagen=datagen, export_model=export_model, check=check)

__all__ = ["PinnCase", "Problem", "SOLVER", "assemble", "datagen", "export_model", "train"]
