"""Taylor-mode higher-order autodiff over jaxprs.

- :mod:`.coef`: coefficients of one order carried for many directions (split/stacked blocks, top channels);
- :mod:`.series`: the truncated-series recurrences (products, quotients, powers, ODE rules, Faà di Bruno);
- :mod:`.rules`: one propagation rule per primitive (:data:`RULES`), registered by family;
- :mod:`.interpreter`: the jaxpr interpreter, the nested-jvp fallback, and :func:`jet`;
- :mod:`.custom`: ``jax.custom_jvp`` functions, differentiated through their rules as in JAX;
- :mod:`.plan`: directions, interpolation weights, spherical designs, collapse;
- :mod:`.engine`: ``derivatives`` for ``mode="taylor"``;
- :mod:`.vmapped`: per-point calls under ``jax.vmap`` evaluated as the batched, tiled call;
- :mod:`.stochastic`: ``derivatives`` for ``mode="stochastic"`` (unbiased ``Δ``/``Δ²`` estimates).
"""
from .engine import derivatives, run_plan
from .interpreter import jet
from .plan import Plan, make_plan
from .rules import RULES, fdb_rule, register_rule
from .stochastic import derivatives as stochastic_derivatives

__all__ = ["RULES", "Plan", "derivatives", "fdb_rule", "jet", "make_plan", "register_rule", "run_plan",
           "stochastic_derivatives"]
