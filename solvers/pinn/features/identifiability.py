r"""Can the data fix the unknowns? The Fisher information of the loss in the unknowns' log scale, at the end.

With the trained network held fixed, let :math:`r(\phi)` be the loss's residuals stacked and weighed so that
:math:`L = r^\top r` (each term's points times :math:`\sqrt{w_t / N_t}`: the data misfit and the physics
residuals through which a coefficient reaches the data), :math:`\phi_i = \log\theta_i` the unknowns' logs and
:math:`J = \partial r / \partial \phi` (forward mode, one pass per unknown). The Gauss–Newton matrix
:math:`F = J^\top J` has eigenpairs :math:`(\lambda_k, v_k)`.

**Criterion:** unknown :math:`i` is *not identifiable* when :math:`F` is near-singular along it: some
eigenvector with :math:`\lambda_k \le 10^{-10} \max(\lambda_{\max}, L)` has a share :math:`v_{ki}^2 > 10^{-6}`
in it. (The loss :math:`L` is the floor of a single unknown, whose :math:`F` is a number: one the loss does not
see has :math:`\lambda = 0`.) Deflections of a plate fix only :math:`q_0/D`: with both unknown, :math:`J`'s two
columns are opposite, :math:`F` is singular along :math:`(1, 1)/\sqrt 2`, and both are reported not
identifiable; either alone is fixed.

Reported beside it, each unknown's **resolution**: the change of :math:`\log\theta_i` that doubles the loss,
:math:`\rho_i = (L \sum_k v_{ki}^2/\lambda_k)^{1/2}` over the eigenvalues above the floor (None along a
singular direction), a scale for how finely the data fix it.

The test holds the network fixed, so it finds the coefficients that reach the loss only in combination (as
:math:`q_0/D`), not ones the network could make up for by changing shape.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

FIELD_POINTS = 101  # a field unknown's summary: points per side of the domain's box

RCOND = 1e-10  # eigenvalues below this fraction of max(largest, loss) count as zero
SHARE = 1e-6  # ... for the unknowns with more than this share (v_ki^2) of their eigenvector
CRITERION = (f"not identifiable: the Gauss-Newton matrix J^T J of the loss in the unknowns' logs (network fixed) "
             f"is near-singular along it (an eigenvalue below {RCOND:g} x max(largest eigenvalue, loss) whose "
             f"eigenvector has a share above {SHARE:g} in it); resolution: the change of log(value) that doubles "
             f"the loss")


def fisher(problem, params, batch) -> tuple[np.ndarray, float]:
    """``(F, L)``: the Gauss-Newton matrix in the unknowns' logs (their order in the case) and the loss
    (fixed weights) at ``params`` (host) on ``batch``."""
    names = list(problem.unknowns.scalars)
    key = jax.random.PRNGKey(0)

    def stacked(z):
        p = {**params, "unknowns": {**params["unknowns"], **dict(zip(names, z))}}
        return problem.stacked_residuals(p, batch, key)

    z = jnp.stack([params["unknowns"][n] for n in names])
    r, jac = jax.jit(lambda z: (stacked(z), jax.jacfwd(stacked)(z)))(z)  # jac: (rows, unknowns), in z
    dlog = jnp.stack([jax.grad(lambda zi, n=n: jnp.log(problem.unknowns.value_of(n, zi)))(z[i])
                      for i, n in enumerate(names)])
    J = np.asarray(jac / dlog)
    return J.T @ J, float(jnp.sum(r**2))


def verdict(F: np.ndarray, loss: float) -> tuple[np.ndarray, np.ndarray]:
    """``(identifiable, resolution)`` of each unknown (module notes); resolution ``inf`` where not."""
    lam, v = np.linalg.eigh(F)
    singular = lam <= RCOND * max(float(lam.max()), loss)
    share = v**2
    identifiable = np.asarray(~(share[:, singular] > SHARE).any(axis=1))
    var = (share[:, ~singular] / lam[~singular]).sum(axis=1)
    return identifiable, np.where(identifiable, np.sqrt(loss * var), np.inf)


def report(problem, params: list, batches: list, metrics: dict) -> dict:
    """The summary's ``unknowns`` (``{name: value}``, or ``"not identifiable"``) and ``identifiability``
    (criterion, resolutions, eigenvalues) from the networks ``params`` (host; an ensemble's members, each on its
    own batch of ``batches``: identifiable when it is for every member, the largest resolution, the mean
    value, the eigenvalues per member); ``metrics`` gains ``<name>_rel_error`` against the equation section's
    value for each identifiable unknown (and ``<name>_<label>_error`` against the scale the equation gives it,
    :meth:`~sciml.equations.Equation.error_scales`). Scalar unknowns only (a field's summary is
    :func:`fields`); none: nothing."""
    names = list(problem.unknowns.scalars)
    if not names:
        return {}
    tests = [fisher(problem, p, b) for p, b in zip(params, batches)]
    verdicts = [verdict(F, loss) for F, loss in tests]
    identifiable, res = np.all([v[0] for v in verdicts], axis=0), np.max([v[1] for v in verdicts], axis=0)
    each = [problem.unknown_values(p) for p in params]
    values, truth = {n: float(np.mean([e[n] for e in each])) for n in names}, problem.unknowns.truth()
    scales = problem.equation.error_scales()
    out = {}
    for n, ok in zip(names, identifiable):
        out[n] = values[n] if ok else "not identifiable"
        if ok:
            metrics[f"{n}_rel_error"] = abs(values[n] - truth[n]) / abs(truth[n])
        if ok and n in scales:
            label, scale = scales[n]
            metrics[f"{n}_{label}_error"] = abs(values[n] - truth[n]) / scale
    eigen = [[float(x) for x in np.linalg.eigvalsh(F)] for F, _ in tests]
    return {"unknowns": out,
            "identifiability": {"criterion": CRITERION,
                                "resolution": {n: float(r) if np.isfinite(r) else None for n, r in zip(names, res)},
                                "fisher_eigenvalues": eigen[0] if len(eigen) == 1 else eigen}}


def fields(problem, params, geometry, metrics: dict) -> dict:
    """The summary's ``fields``: each field unknown's range and the equation's summary of it
    (:meth:`~sciml.equations.Equation.field_summary`, e.g. the plate's damaged zone) from its values on a grid of
    :data:`FIELD_POINTS` per side of the domain (the points inside); ``metrics`` gains the summary's metrics."""
    u = problem.unknowns
    if u is None or not u.fields:
        return {}
    axes = [np.linspace(lo, hi, FIELD_POINTS) for lo, hi in geometry.bounds]
    pts = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], -1)
    pts = pts[geometry.contains(pts)]
    xh = jnp.asarray(problem.equation.to_nondim(pts), problem.dtype)
    out = {}
    for name in u.fields:
        values = np.asarray(jax.jit(u.field(params, name))(xh))
        report, m = problem.equation.field_summary(name, pts, values)
        metrics.update(m)
        out[name] = {"min": float(values.min()), "max": float(values.max()), **report}
    return {"fields": out}
