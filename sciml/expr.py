"""Safe arithmetic expressions from case files, e.g. ``980 * sin(pi * x / 2) * sin(pi * y / 3)``.

The text is parsed with :mod:`ast` and only a whitelist of nodes is accepted: numbers, the named variables,
the constants ``pi`` and ``e``, ``+ - * / ** %``, unary minus, comparisons, ``a if c else b`` and calls of the
functions in ``FUNCTIONS``. Nothing is ``eval``-ed: the tree is walked by :func:`evaluate` with a numeric
module (``numpy`` or ``jax.numpy``) supplying the functions.
"""
from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "sqrt", "abs", "tanh", "sinh", "cosh", "arctan", "arcsin",
             "arccos", "arctan2", "minimum", "maximum", "sign", "heaviside")
CONSTANTS = {"pi": math.pi, "e": math.e}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow, ast.Mod: operator.mod}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_COMPARE = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}


@dataclass(frozen=True)
class Expression:
    """A parsed, checked expression of the variables ``variables``."""

    text: str
    variables: tuple[str, ...]
    tree: ast.Expression

    def __call__(self, np_module, **values):
        return evaluate(self.tree.body, np_module, {**CONSTANTS, **values})

    @property
    def names(self) -> set[str]:
        """The variables the expression actually uses."""
        return {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id in self.variables}


def parse(text: str | float | int, variables: tuple[str, ...]) -> Expression:
    """Parse and check ``text``; raise ``ValueError`` with a short reason on anything not allowed."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = repr(float(text))
    if not isinstance(text, str) or not text.strip():
        raise ValueError("expected a number or an expression such as '1000 * sin(pi * x)'")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ValueError(f"cannot parse expression {text!r}: {e.msg}") from None
    allowed = set(variables) | set(CONSTANTS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in allowed and node.id not in FUNCTIONS:
                raise ValueError(f"unknown name {node.id!r} in {text!r}; variables are {list(variables)}, "
                                 f"constants {sorted(CONSTANTS)}")
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise ValueError(f"only calls of {', '.join(FUNCTIONS)} are allowed in {text!r}")
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
                raise ValueError(f"only numbers are allowed as constants in {text!r}")
        elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Load,
                                   *_BINARY, *_UNARY, *_COMPARE)):
            raise ValueError(f"{type(node).__name__} is not allowed in an expression ({text!r})")
    return Expression(text.strip(), tuple(variables), tree)


def evaluate(node: ast.AST, np_module, env: Mapping[str, Any]):
    """Walk a checked tree; ``np_module`` supplies ``sin``, ``where`` and friends."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](evaluate(node.left, np_module, env), evaluate(node.right, np_module, env))
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](evaluate(node.operand, np_module, env))
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1:
            raise ValueError("chained comparisons are not supported")
        return _COMPARE[type(node.ops[0])](evaluate(node.left, np_module, env),
                                           evaluate(node.comparators[0], np_module, env))
    if isinstance(node, ast.IfExp):
        return np_module.where(evaluate(node.test, np_module, env), evaluate(node.body, np_module, env),
                               evaluate(node.orelse, np_module, env))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return getattr(np_module, node.func.id)(*(evaluate(a, np_module, env) for a in node.args))
    raise ValueError(f"{type(node).__name__} is not allowed")  # unreachable after parse()
