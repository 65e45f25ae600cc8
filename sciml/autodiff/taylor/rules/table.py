"""The rule table :data:`RULES` (primitive name -> Taylor rule) and what a rule receives (:class:`Ctx`).

A rule is called as ``rule(ctx, *xs)`` with, per operand, its truncated series ``[x_0, x_1, …, x_K]`` (``x_0`` the
primal array, ``x_k`` a :class:`~..coef.Coef` or ``None`` for a known zero) and returns the output series (a
list of them for primitives with several results). It may raise ``NotImplementedError`` for operands it does not
handle; the interpreter then falls back to nested ``jax.jvp`` for that equation.
"""
from __future__ import annotations

from collections.abc import Callable


class Ctx:
    """What a rule may use besides the series: the order, the equation's params, its primal evaluation."""

    __slots__ = ("K", "eqn", "params", "lay")

    def __init__(self, K, eqn, lay):
        self.K, self.eqn, self.params, self.lay = K, eqn, eqn.params, lay

    def bind(self, *primals):
        """The primitive applied to primal operands (with this equation's params)."""
        return self.eqn.primitive.bind(*primals, **self.params)

    def apply(self, *args):
        """The primitive with the same params applied to arbitrary (e.g. coefficient) operands."""
        return self.eqn.primitive.bind(*args, **self.params)


RULES: dict[str, Callable] = {}


def register_rule(name: str, rule: Callable) -> None:
    """Add (or replace) the rule of primitive ``name``."""
    RULES[name] = rule


def rule_for(*names: str) -> Callable:
    """Decorator: register the decorated rule for each primitive of ``names``."""

    def register(rule: Callable) -> Callable:
        for name in names:
            register_rule(name, rule)
        return rule

    return register


def const(y0, K: int) -> list:
    """The series of a value that does not depend on the input: ``[y_0, None, …, None]``."""
    return [y0] + [None] * K
