"""One Taylor propagation rule per primitive: the table :data:`RULES` (primitive name -> rule).

A rule receives a :class:`Ctx` and, per operand, its truncated series ``xs = [x_0, x_1, …, x_K]`` (``x_0`` the
primal array, ``x_k`` a :class:`~..coef.Coef` or ``None`` for a known zero) and returns the output series
``[y_0, …, y_K]`` (a list of them for primitives with several results). Coefficients are normalised,
``x(t) = Σ_k x_k t^k``; the recurrences are in :mod:`..series` (Griewank & Walther, *Evaluating Derivatives*,
2nd ed., ch. 13). As in ``jax.experimental.jet`` each rule is registered beside its family:

- :mod:`.arithmetic`: ``add``, ``sub``, ``neg``, ``mul``, ``div``, ``square``, ``dot_general``, convolutions;
- :mod:`.elementwise`: analytic unary functions (``exp``, ``log``, ``tanh``, ``sin``, ``erf``, ``atan``, …,
  ``integer_pow``, ``pow``), by Faà di Bruno with derivatives shared by all directions or by ODE recurrences;
- :mod:`.piecewise`: ``max``, ``min``, ``abs``, ``select_n``, ``clamp``, ``rem``, zero-derivative primitives;
- :mod:`.structural`: linear maps (reshapes, slices, gathers, scatters, concatenation, ``fft``, conversions);
- :mod:`.reductions`: ``reduce_sum``, ``cumsum``, ``reduce_max``, ``reduce_min``;
- :mod:`.collectives`: placement and collectives (``device_put``, sharding constraints, ``psum``, …).

Operands whose series are all zero never reach a rule (the interpreter evaluates the primal only), nor do
primitives with integer or boolean results; a primitive missing from the table (control flow, linear algebra,
special functions such as ``lgamma``) falls back to nested ``jax.jvp`` (see :mod:`..interpreter`). Adding a
primitive means adding one rule to its family's module, or calling :func:`register_rule`.
"""
from . import arithmetic, collectives, elementwise, piecewise, reductions, structural  # noqa: F401 (registration)
from .elementwise import fdb_rule, ode_rule, poly_rule
from .structural import linear_rule
from .table import RULES, Ctx, register_rule, rule_for

_fdb_rule = fdb_rule  # its earlier name, which extensions may import

__all__ = ["RULES", "Ctx", "fdb_rule", "linear_rule", "ode_rule", "poly_rule", "register_rule", "rule_for"]
