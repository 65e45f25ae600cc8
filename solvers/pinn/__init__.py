"""Physics-informed neural networks: geometry and sampling, problem assembly, optimisers, the driver."""
from .config import PinnCase
from .export import export_model
from .problem import Problem, assemble
from .run import train

__all__ = ["PinnCase", "Problem", "assemble", "export_model", "train"]
