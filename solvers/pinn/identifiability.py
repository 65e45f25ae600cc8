r"""Can the data fix the unknowns? The Fisher information of the loss in the unknowns' log scale, at the end.

With the trained network held fixed, let :math:`r(\phi)` be the loss's residuals stacked and weighed so that
:math:`L = r^\top r` (each term's points times :math:`\sqrt{w_t / N_t}`: the data misfit and the physics
residuals through which a coefficient reaches the data), :math:`\phi_i = \log\theta_i` the unknowns' logs and
:math:`J = \partial r / \partial \phi` (forward mode, one pass per unknown). The Gauss–Newton matrix
:math:`F = J^\top J` (eigenpairs :math:`\lambda_k, v_k`) gives the loss near the end as
:math:`L(\phi + \delta) \approx L + \delta^\top F \delta`, so the change of :math:`\log\theta_i` that raises
the loss by its own value :math:`L` is the **resolution**

.. math:: \rho_i = \Big(L \sum_k v_{ki}^2 / \lambda_k\Big)^{1/2}, \qquad
          \text{with } 1/\lambda_k = \infty \text{ when } \lambda_k \le 10^{-10} \max_k \lambda_k
          \text{ (and } v_{ki}^2 > 10^{-6}).

**Criterion:** an unknown is *not identifiable* when :math:`\rho_i > 0.1` (the loss cannot tell its value from
one 10 % away, or it lies along a direction the data do not see at all). Deflections of a plate fix only
:math:`q_0/D`: with both unknown, :math:`J`'s two columns are opposite, :math:`F` is singular along
:math:`(1, 1)/\sqrt 2`, and both are reported not identifiable; either alone is fixed.

The test holds the network fixed, so it finds the coefficients that reach the loss only in combination (as
:math:`q_0/D`), not ones the network could make up for by changing shape; the summary states the criterion.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

RCOND = 1e-10  # eigenvalues below this fraction of the largest count as zero
SHARE = 1e-6  # ... for the unknowns with at least this share (v_ki^2) of their eigenvector
RESOLUTION = 0.1  # the largest resolution in log(value) of an identifiable unknown
CRITERION = (f"not identifiable: the change of log(value) that doubles the final loss, from the Gauss-Newton "
             f"matrix J^T J in the unknowns' logs (network fixed), exceeds {RESOLUTION} (eigenvalues below "
             f"{RCOND:g} x the largest count as zero)")


def fisher(problem, params, batch) -> tuple[np.ndarray, float]:
    """``(F, L)``: the Gauss-Newton matrix in the unknowns' logs (their order in the case) and the loss
    (fixed weights) at ``params`` (host) on ``batch``."""
    names = list(problem.unknowns.specs)
    key = jax.random.PRNGKey(0)

    def stacked(z):
        p = {**params, "unknowns": {**params["unknowns"], **dict(zip(names, z))}}
        return problem.stacked_residuals(p, batch, key)

    z = jnp.stack([params["unknowns"][n] for n in names])
    jac = jax.jit(jax.jacfwd(stacked))(z)  # (rows, unknowns) in the raw scalars z
    dlog = jnp.stack([jax.grad(lambda zi, n=n: jnp.log(problem.unknowns.value_of(n, zi)))(z[i])
                      for i, n in enumerate(names)])
    J = np.asarray(jac / dlog)
    return J.T @ J, float(jnp.sum(jax.jit(stacked)(z) ** 2))


def resolutions(F: np.ndarray, loss: float) -> np.ndarray:
    """The resolution of each unknown's log (module notes); ``inf`` along a near-singular direction."""
    lam, v = np.linalg.eigh(F)
    top = max(float(lam.max()), 0.0)
    inv = np.where(lam > RCOND * top, 1.0 / np.where(lam > 0, lam, 1.0), np.inf) if top > 0 else \
        np.full_like(lam, np.inf)
    share = v**2
    with np.errstate(invalid="ignore"):  # 0 * inf where an unknown has no share of a null direction
        var = np.where(share > SHARE, share * inv[None, :], 0.0).sum(axis=1)
    return np.sqrt(loss * var)


def report(problem, params, batch, metrics: dict) -> dict:
    """The summary's ``unknowns`` (``{name: value}``, or ``"not identifiable"``) and ``identifiability``
    (criterion, resolutions, eigenvalues); ``metrics`` gains ``<name>_rel_error`` against the equation
    section's value for each identifiable unknown."""
    names = list(problem.unknowns.specs)
    F, loss = fisher(problem, params, batch)
    res = resolutions(F, loss)
    values, truth = problem.unknown_values(params), problem.unknowns.truth()
    out = {}
    for n, rho in zip(names, res):
        ok = bool(np.isfinite(rho) and rho <= RESOLUTION)
        out[n] = values[n] if ok else "not identifiable"
        if ok:
            metrics[f"{n}_rel_error"] = abs(values[n] - truth[n]) / abs(truth[n])
    return {"unknowns": out,
            "identifiability": {"criterion": CRITERION,
                                "resolution": {n: float(r) if np.isfinite(r) else None for n, r in zip(names, res)},
                                "fisher_eigenvalues": [float(x) for x in np.linalg.eigvalsh(F)]}}
