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
