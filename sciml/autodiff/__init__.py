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

# The Taylor engine: "taylor" (exact, one planned propagation) and "stochastic" (unbiased Δ/Δ² estimates).
try:
    from . import taylor as _taylor
except ImportError:  # pragma: no cover - keep the API usable with the reference mode
    _taylor = None
if _taylor is not None:
    register_mode("taylor", _taylor.derivatives)
    register_mode("stochastic", _taylor.stochastic_derivatives)
if "taylor" not in MODES:  # pragma: no cover
    register_mode("taylor", MODES["nested"])

__all__ = [
    "DEFAULT_MODE", "MODES", "LinearOperator", "MultiIndex", "Request", "biharmonic", "biharmonic_op",
    "derivatives", "divergence", "grad", "hessian", "jacobian", "laplacian", "laplacian_op", "linear_operator",
    "multi_indices", "partial", "register_mode", "unit",
]
