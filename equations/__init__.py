"""PDE problems: residuals over named fields and coordinates, boundary conditions, references.

``EQUATIONS`` maps a case file's ``equation.type`` to ``(config dataclass, problem class)``.
"""
from .plate import KirchhoffPlate, PlateConfig

EQUATIONS = {"kirchhoff_plate": (PlateConfig, KirchhoffPlate)}

__all__ = ["EQUATIONS", "KirchhoffPlate", "PlateConfig"]
