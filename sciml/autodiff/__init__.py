"""Higher-order automatic differentiation: Taylor mode over jaxprs and the differential-operator API."""
from . import taylor as _taylor
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
from .operators import (
    LinearOperator,
    MultiIndex,
    Polyharmonic,
    Request,
    biharmonic_op,
    laplacian_op,
    multi_indices,
    unit,
)

# The Taylor engine's modes beside the reference one: "taylor" (exact, one planned propagation, the default) and
# "stochastic" (unbiased Δ/Δ² estimates). An engine that fails to import fails loudly here.
register_mode("taylor", _taylor.derivatives)
register_mode("stochastic", _taylor.stochastic_derivatives)

__all__ = [
    "DEFAULT_MODE", "MODES", "LinearOperator", "MultiIndex", "Polyharmonic", "Request", "biharmonic", "biharmonic_op",
    "derivatives", "divergence", "grad", "hessian", "jacobian", "laplacian", "laplacian_op", "linear_operator",
    "multi_indices", "partial", "register_mode", "unit",
]
