"""Steady heat conduction (equations/heat.py): a manufactured temperature zeroes the residuals (source, temperature
and flux given as expressions), the scales, and the section's checks against the domain."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml import autodiff as ad
from sciml.equations.fields import Fields
from sciml.equations.heat import Heat, HeatConfig, check_section, scales
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import Box
from sciml.solvers.pinn.geometry.spacetime import SpaceTime

K = 2.5
EXACT = "sin(pi * x) * cos(pi * y / 2) * exp(z)"
SOURCE = f"{K} * (pi ** 2 + pi ** 2 / 4 - 1) * {EXACT}"  # -k Δu
BOX = Box([0, 1], [0, 2], [0, 0.5])


def conditions(**changes):
    out = {"left": {"u": EXACT}, "right": {"u": 3.0}, "front": {"u": -1.0}, "back": {"flux": 0.0},
           "bottom": {"flux": 0}, "top": {"flux": f"{K} * {EXACT}"}}  # the flux in through z = 0.5: k du/dz
    return {**out, **changes}


def test_a_manufactured_temperature_zeroes_the_residuals():
    with jax.enable_x64(True):
        eq = Heat(HeatConfig(type="heat", k=K, source=SOURCE, conditions=conditions()), BOX)
        assert (eq.T0, eq.dT, eq.L) == (1.0, 2.0, 1.0)  # the held numbers 3 and -1; half the longest side

        def u_hat(xh):
            x = eq.to_physical(xh)
            u = jnp.sin(jnp.pi * x[..., 0]) * jnp.cos(jnp.pi * x[..., 1] / 2) * jnp.exp(x[..., 2])
            return ((u - eq.T0) / eq.dT)[..., None]

        x = BOX.interior(16, np.random.default_rng(0), "uniform")
        xh = jnp.asarray(eq.to_nondim(x))
        requests = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), ad.laplacian_op(3)]
        values = ad.derivatives(u_hat, requests)(xh)
        d = Fields(xh, values, eq.fields, eq.coords)
        np.testing.assert_allclose(eq.interior(d)["pde"], 0.0, atol=1e-10)
        np.testing.assert_allclose(eq.boundary("left", d, None)["u"], 0.0, atol=1e-12)
        np.testing.assert_allclose(eq.boundary("top", d, jnp.tile(jnp.array([0.0, 0.0, 1.0]), (16, 1)))["flux"], 0.0,
                                   atol=1e-10)
        assert np.abs(eq.boundary("bottom", d, jnp.tile(jnp.array([0.0, 0.0, -1.0]), (16, 1)))["flux"]).min() > 0
        np.testing.assert_allclose(eq.derived(d)["u"], np.sin(np.pi * x[:, 0]) * np.cos(np.pi * x[:, 1] / 2)
                                   * np.exp(x[:, 2]), rtol=1e-12)
        held, source = eq.classical()
        assert {p: kind for p, (kind, _) in held.items()} == {"left": "temperature", "right": "temperature",
                                                              "front": "temperature", "back": "flux",
                                                              "bottom": "flux", "top": "flux"}
        np.testing.assert_allclose(held["right"][1](*x.T), 3.0)
        np.testing.assert_allclose(source(*x.T), K * (np.pi**2 * 1.25 - 1) * eq.derived(d)["u"], rtol=1e-12)


def test_scales_from_the_held_numbers():
    assert scales(HeatConfig(type="heat", conditions={"a": {"u": 300}, "b": {"u": 310}})) == (305.0, 5.0)
    assert scales(HeatConfig(type="heat", conditions={"a": {"u": 300}, "b": {"flux": 10}})) == (300.0, 1.0)
    assert scales(HeatConfig(type="heat", conditions={"a": {"u": "x"}, "b": {"flux": 10}})) == (0.0, 1.0)


@pytest.mark.parametrize("changes,key,message", [
    ({"top": None}, "conditions", "no condition for part(s) ['top']"),
    ({"lid": {"u": 0}}, "conditions.lid", "unknown boundary part"),
    ({"top": {"u": 0, "flux": 0}}, "conditions.top", "give one of {u: temperature} or {flux: heat flux in}"),
    ({"top": {"T": 0}}, "conditions.top", "give one of"),
    ({"top": {"u": "q + 1"}}, "conditions.top.u", "unknown name 'q'"),
    ({"left": {"flux": 0}, "right": {"flux": 0}, "front": {"flux": 0}}, "conditions", "no part is held"),
])
def test_the_section_is_checked_against_the_domain(changes, key, message):
    held = {k: v for k, v in conditions(**changes).items() if v is not None}
    with pytest.raises(Invalid) as err:
        check_section(HeatConfig(type="heat", conditions=held), BOX)
    assert err.value.key == key and message in err.value.message


def test_heat_is_steady():
    with pytest.raises(Invalid, match="steady"):
        check_section(HeatConfig(type="heat", conditions=conditions()), SpaceTime(BOX, (0.0, 1.0)))
