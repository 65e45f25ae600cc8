"""Higher-order automatic differentiation: Taylor mode over jaxprs and the differential-operator API."""
from .api import (
    DEFAULT_MODE,
    MODES,
    biharmonic,
    derivatives,
    divergence,
    grad,
    hessian,
    jacobian,
    laplacian,
    linear_operator,
    partial,
    register_mode,
)
from .operators import LinearOperator, MultiIndex, Request, biharmonic_op, laplacian_op, multi_indices, unit

# The Taylor engine registers "taylor" and "stochastic" when it is importable; until then "taylor" is nested.
try:  # pragma: no cover - replaced once the engine lands
    from . import taylor as _taylor  # noqa: F401
except ImportError:  # pragma: no cover
    register_mode("taylor", MODES["nested"])

__all__ = [
    "DEFAULT_MODE", "MODES", "LinearOperator", "MultiIndex", "Request", "biharmonic", "biharmonic_op",
    "derivatives", "divergence", "grad", "hessian", "jacobian", "laplacian", "laplacian_op", "linear_operator",
    "multi_indices", "partial", "register_mode", "unit",
]
