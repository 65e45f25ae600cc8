"""Models as plain pytrees with ``init``/``apply`` functions."""
from . import mlp

__all__ = ["mlp"]
