"""An unsteady flow past the DFG cylinder whose forces are known, for the checks' tests: potential flow with
circulation ``gamma`` in a stream ``U(t) = 1 + e sin(2 pi f (t - delay))`` (unsteady Bernoulli; an exact
Navier-Stokes solution), c_D(t) = k 2 pi rho a^2 U'(t), c_L(t) = k rho gamma U(t), k = 2 / (rho U_mean^2 D)."""
import jax
import jax.numpy as jnp
import numpy as np

C, A = (0.2, 0.2), 0.05


def oscillating_potential(f: float, e: float, gamma: float, rho: float = 1.0, delay: float = 0.0):
    """``predict(points (N, 3), of=None) -> fields`` (with first derivatives when ``of`` is given)."""
    U = lambda t: 1.0 + e * jnp.sin(2 * jnp.pi * f * (t - delay))

    def fields(pt):
        z, t = (pt[0] - C[0]) + 1j * (pt[1] - C[1]), pt[2]
        dw = U(t) * (1 - A**2 / z**2) + 1j * gamma / (2 * jnp.pi * z)
        u, v = jnp.real(dw), -jnp.imag(dw)
        return jnp.stack([u, v, -rho * (jax.grad(U)(t) * jnp.real(z + A**2 / z) + (u**2 + v**2) / 2)])

    return predict_of(fields)


def predict_of(fields):
    """``predict(points (N, 3), of=None) -> fields`` of ``fields(point (3,)) -> (u, v, p)`` (with first derivatives
    when ``of`` is given)."""
    # called at 201 times, on a few shapes: compiled once each
    values = jax.jit(lambda pts: (jax.vmap(fields)(pts), jax.vmap(jax.jacfwd(fields))(pts)))

    def predict(pts, of=None):
        val, jac = values(jnp.asarray(pts))
        out = {"u": val[:, 0], "v": val[:, 1], "p": val[:, 2], "vorticity": jac[:, 1, 0] - jac[:, 0, 1]}
        if of is not None:
            out.update({"u_x": jac[:, 0, 0], "u_y": jac[:, 0, 1], "v_x": jac[:, 1, 0], "v_y": jac[:, 1, 1],
                        "u_t": jac[:, 0, 2], "v_t": jac[:, 1, 2]})
        return {k: np.asarray(v) for k, v in out.items()}

    return predict


def channel_stream(e: float, H: float = 0.41):
    """A divergence-free flow in the DFG channel that goes round the cylinder, carrying ``Q(t) = H (1 + e sin(2 pi
    t))`` through every section: ``psi = Q(t) g(y)``, ``g`` rising 0 -> 1/2 below the cylinder and 1/2 -> 1 above
    it (smooth steps) and 1/2 across it, so the cylinder is a streamline."""
    step = lambda s: 3 * s**2 - 2 * s**3
    low, high = C[1] - A, C[1] + A
    g = lambda y: jnp.where(y < low, step(jnp.clip(y / low, 0, 1)) / 2,
                            0.5 + jnp.where(y > high, step(jnp.clip((y - high) / (H - high), 0, 1)) / 2, 0.0))

    def fields(pt):
        psi = lambda q: H * (1 + e * jnp.sin(2 * jnp.pi * q[2])) * g(q[1])
        d = jax.grad(psi)(pt)
        return jnp.stack([d[1], -d[0], 0.0 * pt[0]])

    return predict_of(fields)
