"""The differential-operator API every solver and equation goes through.

All functions take a *pointwise* ``f``: it maps ``x`` of shape ``(..., d)`` to ``(..., m)`` or ``(...)``,
each row independently (an MLP applied to a batch of points is pointwise). Derivatives keep the shape of
``f(x)``. With a multi-index ``α = (α_1, …, α_d)`` the partial is ``∂^α f = ∂_1^{α_1} ⋯ ∂_d^{α_d} f`` of order
``|α| = α_1 + ⋯ + α_d``. ``mode`` picks the implementation from the table ``MODES``, and ``**options`` are that
mode's keywords:

- ``"taylor"`` (default): the Taylor-mode engine, one planned propagation for the whole request set
  (:mod:`.taylor`). Options: ``layout`` (``"split"``, default, or ``"stacked"``: directions of equal depth on
  a leading axis), ``collapse`` (``True``: fold top coefficients into channels, collapsed Taylor mode),
  ``chunk`` (points per tile: ``"auto"``, default, an ``int``, or ``None`` for the whole batch at once);
- ``"nested"``: nested ``jax.jvp`` along unit directions, the reference the engine is validated against
  (:mod:`.nested`). No options;
- ``"stochastic"``: unbiased randomized estimates of ``Δ``/``Δ²`` (:mod:`.taylor.stochastic`; multi-indices are
  computed exactly, other operators refused). Options: ``key`` (a ``jax.random`` key, required), ``samples``
  (random directions per evaluation, default 16), ``distribution`` (``"rademacher"``, the default for ``Δ``,
  ``"sparse"``: scaled coordinate directions ``√d e_i``, or ``"gaussian"``, required for ``Δ²``), ``per_point``
  (``True``: new directions at every point), ``layout``, ``chunk``.

``"taylor"`` ignores the stochastic mode's keywords, so a configuration can switch between the two.
Everything returns ordinary JAX functions: they compose with ``jit``, ``vmap``, ``grad`` and sharding. A
``jax.custom_jvp`` function inside ``f`` is differentiated through its rule, as JAX does (a straight-through
estimator has the identity's derivatives; :mod:`.taylor.custom`), and an operator of a per-point ``f`` under
``jax.vmap`` evaluates the batch as the batched call would, tiles included (:mod:`.taylor.vmapped`).

References:
    Griewank & Walther, *Evaluating Derivatives*, 2nd ed., SIAM 2008, ch. 13 (Taylor arithmetic).
    Griewank, Utke & Walther, *Evaluating higher derivative tensors by forward propagation of univariate Taylor
    series*, Math. Comp. 69 (2000) 1117-1130 (mixed partials from directional derivatives).
    Dangel, Siebert, Zeinhofer & Walther, *Collapsing Taylor mode automatic differentiation*, NeurIPS 2025,
    arXiv:2505.13644.
    Shi, Hu, Lin & Kawaguchi, *Stochastic Taylor derivative estimator: efficient amortization for arbitrary
    differential operators*, NeurIPS 2024, arXiv:2412.00088.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import jax.numpy as jnp

from . import nested
from .operators import (
    LinearOperator,
    MultiIndex,
    Request,
    biharmonic_op,
    laplacian_op,
    multi_indices,
    unit,
    validate,
)

if TYPE_CHECKING:  # shapes for the reader and the type checker; jaxtyping is not needed at run time
    from jax import Array
    from jaxtyping import Float

    Points = Float[Array, "*batch d"]  # points, their d coordinates on the last axis
    Values = Float[Array, "*fx"]  # values of the shape of f(x): (*batch, m) or (*batch)
    PointwiseFn = Callable[[Points], Values]

# mode name -> derivatives(f, requests, **options) -> (x -> {request: array}); engines register here.
MODES: dict[str, Callable] = {"nested": nested.derivatives}
DEFAULT_MODE = "taylor"


def register_mode(name: str, implementation: Callable) -> None:
    """Add an implementation of :func:`derivatives` under ``name``.

    Args:
        name: the value of ``mode`` that selects it.
        implementation: ``(f, requests, **options) -> (x -> {request: array})``, ``requests`` a tuple of
            validated requests (multi-indices as tuples of ints, :class:`LinearOperator` s).
    """
    MODES[name] = implementation


def derivatives(f: PointwiseFn, requests: Iterable[Request], *, mode: str | None = None,
                **options) -> Callable[[Points], dict[Request, Values]]:
    """Several partials and linear differential operators of ``f``, from one propagation.

    A request is a multi-index ``α`` (``∂^α f``) or a :class:`LinearOperator` ``L f = Σ_α c_α ∂^α f``.
    The whole set is handed to the engine at once, so that it can plan one propagation for all of it: along
    a direction ``v`` the order-``k`` Taylor coefficient of ``t -> f(x + t v)`` is
    ``D^k f[v, …, v] / k! = Σ_{|α| = k} (v^α / α!) ∂^α f``, and every request is a combination of these
    over a few directions (:mod:`.taylor.plan`).

    Args:
        f: pointwise function, ``(..., d) -> (..., m)`` or ``(...)``.
        requests: multi-indices (sequences of ``d`` non-negative ints) and :class:`LinearOperator` s on ``d``
            coordinates; repeats are computed once.
        mode: ``"taylor"`` (default), ``"nested"`` or ``"stochastic"`` (see the module notes).
        **options: the mode's keywords. ``"taylor"``: ``layout``, ``collapse``, ``chunk``; ``"stochastic"``:
            ``key``, ``samples``, ``distribution``, ``per_point``, ``layout``, ``chunk``; ``"nested"``: none.

    Returns:
        ``x -> {request: array}``: for ``x`` of shape ``(..., d)`` a dict keyed by the requests (multi-indices
        as tuples of ints), each value of the shape of ``f(x)``.

    Raises:
        ValueError: an unknown mode (at once); a request that does not fit ``x.shape[-1]`` (when evaluated).
        TypeError: an option the mode does not know (when evaluated; ``"nested"`` ignores options).

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: x[..., 0] ** 3 * x[..., 1]  # u = x³ y
        >>> x = jnp.array([[1.0, 2.0], [2.0, -1.0]])
        >>> d = ad.derivatives(f, [(1, 0), (2, 1), ad.laplacian_op(2)])(x)
        >>> print(jnp.round(d[(1, 0)], 4), jnp.round(d[(2, 1)], 4), jnp.round(d[ad.laplacian_op(2)], 4))
        [  6. -12.] [ 6. 12.] [ 12. -12.]

    References:
        Griewank, Utke & Walther, Math. Comp. 69 (2000) 1117-1130; Dangel, Siebert, Zeinhofer & Walther,
        arXiv:2505.13644 (see the module notes).
    """
    requests = tuple(dict.fromkeys(requests))
    mode = mode or DEFAULT_MODE
    if mode not in MODES:
        raise ValueError(f"unknown autodiff mode {mode!r}; choose one of {sorted(MODES)}")
    impl = MODES[mode]

    def evaluate(x):
        d = x.shape[-1]
        checked = tuple(validate(r, d) for r in requests)
        return impl(f, checked, **options)(x)

    return evaluate


def _single(f, request, mode, options) -> Callable:
    run = derivatives(f, (request,), mode=mode, **options)
    return lambda x: run(x)[request if isinstance(request, LinearOperator) else tuple(request)]


def partial(f: PointwiseFn, alpha: MultiIndex, *, mode: str | None = None, **options) -> PointwiseFn:
    """One partial derivative ``∂^α f = ∂_1^{α_1} ⋯ ∂_d^{α_d} f``, of any order.

    Args:
        f: pointwise function, ``(..., d) -> (..., m)`` or ``(...)``.
        alpha: the multi-index, ``d`` non-negative ints (``(0, 2)``: ``∂²f/∂y²``).
        mode, **options: as for :func:`derivatives`.

    Returns:
        ``x -> ∂^α f(x)``, of the shape of ``f(x)``.

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: x[..., 0] ** 2 * x[..., 1] ** 3  # ∂_x ∂_y² f = 12 x y
        >>> x = jnp.array([[1.0, 2.0], [2.0, -1.0]])
        >>> print(jnp.round(ad.partial(f, (1, 2))(x), 4), jnp.round(ad.partial(f, (1, 2), mode="nested")(x), 4))
        [ 24. -24.] [ 24. -24.]
    """
    return _single(f, tuple(alpha), mode, options)


def linear_operator(f: PointwiseFn, coefficients: Mapping[MultiIndex, float] | LinearOperator, *,
                    mode: str | None = None, **options) -> PointwiseFn:
    """A linear differential operator with constant coefficients, ``L f = Σ_α c_α ∂^α f``.

    Terms of different orders are planned order by order and summed; for the ``"taylor"`` mode a
    homogeneous operator (one order) is collapsed into a single channel.

    Args:
        f: pointwise function, ``(..., d) -> (..., m)`` or ``(...)``.
        coefficients: ``{α: c_α}`` or a :class:`LinearOperator`.
        mode, **options: as for :func:`derivatives` (``"stochastic"`` accepts only multiples of ``Δ`` and
            ``Δ²``).

    Returns:
        ``x -> L f(x)``, of the shape of ``f(x)``.

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: x[..., 0] ** 3 + x[..., 1] ** 2  # (∂_x² - 3 ∂_y) f = 6 x - 6 y
        >>> print(jnp.round(ad.linear_operator(f, {(2, 0): 1.0, (0, 1): -3.0})(jnp.array([[1.0, 2.0]])), 4))
        [-6.]
    """
    op = coefficients if isinstance(coefficients, LinearOperator) else LinearOperator.of(coefficients)
    return _single(f, op, mode, options)


def laplacian(f: PointwiseFn, *, mode: str | None = None, **options) -> PointwiseFn:
    """The Laplacian ``Δf = Σ_i ∂_i² f``.

    ``"taylor"``: the ``d`` unit directions to order 2, their second-order coefficients collapsed into one
    channel (the forward Laplacian). ``"stochastic"``: ``Δf = E[D²f[v, v]]`` for random ``v`` with
    ``E[v vᵀ] = I``, estimated as ``(1/S) Σ_s D²f[v_s, v_s]`` from ``S = samples`` directions.

    Args:
        f: pointwise function, ``(..., d) -> (..., m)`` or ``(...)``.
        mode, **options: as for :func:`derivatives`.

    Returns:
        ``x -> Δf(x)`` (``"stochastic"``: an unbiased estimate), of the shape of ``f(x)``.

    Examples:
        >>> import jax, jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: x[..., 0] ** 2 + 3.0 * x[..., 1] ** 2  # Δf = 8
        >>> x = jnp.array([[1.0, 2.0], [-0.5, 0.25]])
        >>> print(jnp.round(ad.laplacian(f)(x), 4))
        [8. 8.]

        With a diagonal Hessian every Rademacher sample gives ``vᵀ H v = tr H``: the estimate is exact.

        >>> lap = ad.laplacian(f, mode="stochastic", key=jax.random.PRNGKey(0), samples=4)
        >>> print(jnp.round(lap(x), 4))
        [8. 8.]

    References:
        Li et al., *Forward Laplacian: a new computational framework for neural network-based variational
        Monte Carlo* (2023); Shi, Hu, Lin & Kawaguchi, arXiv:2412.00088 (the stochastic estimate).
    """
    return lambda x: _single(f, laplacian_op(x.shape[-1]), mode, options)(x)


def biharmonic(f: PointwiseFn, *, mode: str | None = None, **options) -> PointwiseFn:
    """The biharmonic operator ``Δ²f = Σ_i ∂_i⁴ f + 2 Σ_{i<j} ∂_i² ∂_j² f``.

    ``"taylor"``: a spherical 4-design ``{v_m}_{m=1}^M`` gives ``Δ²f = d(d+2)/(3M) Σ_m D⁴f[v_m, v_m, v_m, v_m]``
    (3 directions in 2D, 6 in 3D), collapsed into one channel, with the lower orders shared through a basis.
    ``"stochastic"``: for Gaussian ``v``, ``E[D⁴f[v, v, v, v]] = 3 Δ²f``, estimated from ``samples`` directions.

    Args:
        f: pointwise function, ``(..., d) -> (..., m)`` or ``(...)``.
        mode, **options: as for :func:`derivatives` (``"stochastic"`` needs ``distribution="gaussian"``, the
            default for ``Δ²``).

    Returns:
        ``x -> Δ²f(x)`` (``"stochastic"``: an unbiased estimate), of the shape of ``f(x)``.

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: x[..., 0] ** 4 + x[..., 0] ** 2 * x[..., 1] ** 2  # Δ²f = 24 + 2·4
        >>> x = jnp.array([[0.5, 1.0], [1.0, -2.0]])
        >>> print(jnp.round(ad.biharmonic(f)(x), 4))
        [32. 32.]

    References:
        Dangel, Siebert, Zeinhofer & Walther, arXiv:2505.13644 (collapsed Taylor mode); Shi, Hu, Lin &
        Kawaguchi, arXiv:2412.00088 (the stochastic estimate).
    """
    return lambda x: _single(f, biharmonic_op(x.shape[-1]), mode, options)(x)


def _stack_partials(f, order, mode, options, x):
    d = x.shape[-1]
    alphas = multi_indices(d, order)
    vals = derivatives(f, alphas, mode=mode, **options)(x)
    return d, vals


def jacobian(f: PointwiseFn, *, mode: str | None = None,
             **options) -> Callable[[Points], Float[Array, "*fx d"]]:
    """The Jacobian ``J[..., i] = ∂_i f``, the input coordinate as the last axis.

    Args:
        f: pointwise function, ``(..., d) -> (..., m)`` or ``(...)``.
        mode, **options: as for :func:`derivatives`.

    Returns:
        ``x -> J`` of shape ``f(x).shape + (d,)``: ``(..., m, d)`` for vector-valued ``f``, ``(..., d)`` (the
        gradient) for scalar-valued ``f``.

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: jnp.stack([x[..., 0] * x[..., 1], x[..., 0] + x[..., 1] ** 2], -1)
        >>> print(jnp.round(ad.jacobian(f)(jnp.array([[1.0, 2.0]])), 4))
        [[[2. 1.]
          [1. 4.]]]
    """

    def jac(x):
        d, vals = _stack_partials(f, 1, mode, options, x)
        return jnp.stack([vals[unit(d, i)] for i in range(d)], axis=-1)

    return jac


def grad(f: Callable[[Points], Float[Array, "*batch"]], *, mode: str | None = None,
         **options) -> Callable[[Points], Float[Array, "*batch d"]]:
    """The gradient ``∇f = (∂_1 f, …, ∂_d f)`` of a scalar-valued ``f``: its :func:`jacobian`.

    Args:
        f: pointwise scalar-valued function, ``(..., d) -> (...)``.
        mode, **options: as for :func:`derivatives`.

    Returns:
        ``x -> ∇f(x)`` of shape ``(..., d)`` (for vector-valued ``f``: the Jacobian, ``(..., m, d)``).

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: x[..., 0] ** 2 * x[..., 1]  # ∇f = (2 x y, x²)
        >>> print(jnp.round(ad.grad(f)(jnp.array([[1.0, 2.0], [3.0, -1.0]])), 4))
        [[ 4.  1.]
         [-6.  9.]]
    """
    return jacobian(f, mode=mode, **options)


def hessian(f: PointwiseFn, *, mode: str | None = None,
            **options) -> Callable[[Points], Float[Array, "*fx d d"]]:
    """The Hessian ``H[..., i, j] = ∂_i ∂_j f``, the coordinates as the two last axes.

    All ``d(d+1)/2`` second partials come from one propagation (``"taylor"``: the unit directions and, for
    each mixed partial, the directions it is interpolated from).

    Args:
        f: pointwise function, ``(..., d) -> (..., m)`` or ``(...)``.
        mode, **options: as for :func:`derivatives`.

    Returns:
        ``x -> H`` of shape ``f(x).shape + (d, d)``, symmetric in its last two axes.

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: x[..., 0] ** 2 * x[..., 1] + x[..., 1] ** 3  # H = [[2y, 2x], [2x, 6y]]
        >>> print(jnp.round(ad.hessian(f)(jnp.array([[1.0, 2.0]])), 4))
        [[[ 4.  2.]
          [ 2. 12.]]]
    """

    def hess(x):
        d, vals = _stack_partials(f, 2, mode, options, x)
        idx = lambda i, j: tuple(int(k == i) + int(k == j) for k in range(d))
        return jnp.stack([jnp.stack([vals[idx(i, j)] for j in range(d)], -1) for i in range(d)], -2)

    return hess


def divergence(f: Callable[[Points], Float[Array, "*batch d"]], *, mode: str | None = None,
               **options) -> Callable[[Points], Float[Array, "*batch"]]:
    """The divergence ``∇·f = Σ_i ∂_i f_i`` of a vector field ``f: (..., d) -> (..., d)``.

    Args:
        f: pointwise function, ``(..., d) -> (..., d)``.
        mode, **options: as for :func:`derivatives`.

    Returns:
        ``x -> ∇·f(x)`` of shape ``(...)``: the trace of the :func:`jacobian`.

    Examples:
        >>> import jax.numpy as jnp
        >>> from sciml import autodiff as ad
        >>> f = lambda x: jnp.stack([x[..., 0] ** 2, x[..., 0] * x[..., 1]], -1)  # ∇·f = 3 x
        >>> print(jnp.round(ad.divergence(f)(jnp.array([[1.0, 2.0], [2.0, 5.0]])), 4))
        [3. 6.]
    """

    def div(x):
        j = jacobian(f, mode=mode, **options)(x)
        return jnp.trace(j, axis1=-2, axis2=-1)

    return div
