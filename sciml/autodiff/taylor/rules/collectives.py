"""Placement and collectives: linear in the operand, ``y_k = L x_k`` with ``L`` the primitive itself.

``sharding_constraint``, ``reshard`` (and ``mesh_cast``) annotate or move an array; ``psum``, ``all_gather`` (and
``reduce_and_scatter``) sum or gather it over a mapped axis (inside ``shard_map``). The names in parentheses are
spellings of other JAX versions. ``device_put`` leaves values unchanged: the identity on the coefficients.
"""
from __future__ import annotations

from .structural import identity_rule, linear_rule
from .table import register_rule, rule_for

for _name in ("sharding_constraint", "reshard", "mesh_cast", "psum", "all_gather", "reduce_and_scatter"):
    register_rule(_name, linear_rule((0,)))


@rule_for("device_put")
def _device_put(ctx, *series):
    """One operand and result (older JAX), or several: one result per operand."""
    if ctx.eqn.primitive.multiple_results:
        return identity_rule(ctx, *series)
    return linear_rule((0,))(ctx, *series)
