"""Per-point calls under ``jax.vmap``: the whole batch as one batched, tiled call.

Users write ``u(x)`` for one point and ``jax.vmap`` the operator (as DeepXDE and jaxpi code does). Inside, the
engine sees a single point ``x`` of shape ``(d,)``: there is no point axis to tile (``chunk``,
:func:`.engine.run_plan`), and ``vmap`` makes the untiled batched program (on CPU the tiled one is about
1.4-1.7× faster for ``Δ²`` at 8k points). So when the transformation that batches ``x`` is the innermost one at
the call, the call goes through :func:`jax.custom_batching.custom_vmap`: its rule evaluates the batch ``X`` as
the batched call ``operator(jax.vmap(u))(X)`` would (``u`` vmapped over the points, the points tiled). Values
closed over by ``u`` that the same ``vmap`` batches (one function per point) leave nothing to tile: the rule
then vmaps the per-point evaluation, as without it.

Only then: a ``custom_vmap`` call that a JVP reaches before the ``vmap`` (``vmap`` of ``grad``) has no reverse
mode in JAX. Telling the cases apart reads two JAX internals (the tracer's type and the current trace); where
they are missing the call stays on the plain path (correct, untiled).
"""
from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

try:  # JAX internals: the batching tracer and the innermost transformation at this call
    from jax._src.core import trace_ctx as _trace_ctx
    from jax._src.interpreters.batching import BatchTracer as _BatchTracer
except ImportError:  # pragma: no cover - other JAX versions: the plain path
    _trace_ctx = _BatchTracer = None  # type: ignore[assignment,misc]  # an optional import mypy cannot model


def batched_here(x) -> bool:
    """Whether ``x`` is batched by a ``vmap`` that is the innermost transformation at this call."""
    if _BatchTracer is None or not isinstance(x, _BatchTracer):
        return False
    try:
        return x._trace is _trace_ctx.trace and x.batch_dim is not None
    except AttributeError:  # pragma: no cover
        return False


def call(evaluate_batch: Callable, evaluate_point: Callable, f: Callable, x) -> dict:
    """``evaluate_point(f, x)`` (a dict) for one point ``x`` of a ``vmap``-ed batch, computed for the whole batch
    by ``evaluate_batch(g, X)`` with ``g = jax.vmap(f)`` and ``X`` the batch of points."""
    closed = jax.make_jaxpr(f)(x)  # its constants (parameters, maybe batched too) become arguments
    conv = lambda z, *cs: jax.core.eval_jaxpr(closed.jaxpr, cs, z)[0]
    keys: list = []

    def point(y, cs):
        out = evaluate_point(lambda z: conv(z, *cs), y)
        keys[:] = list(out)
        return list(out.values())

    batched = jax.custom_batching.custom_vmap(point)

    @batched.def_vmap
    def rule(axis_size, in_batched, y, cs):
        y_batched, cs_batched = in_batched
        if any(cs_batched):  # a function per point: the per-point evaluation, vmapped
            axes = (0 if y_batched else None, [0 if b else None for b in cs_batched])
            outs = jax.vmap(point, in_axes=axes)(y, cs)
        else:
            if not y_batched:
                y = jnp.broadcast_to(y, (axis_size,) + y.shape)
            outs = list(evaluate_batch(jax.vmap(lambda z: conv(z, *cs)), y).values())
        return outs, [True] * len(outs)

    vals = batched(x, list(closed.consts))
    return dict(zip(keys, vals))
