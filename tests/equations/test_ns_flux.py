"""The flux through sections (equation.flux) on channel flows whose flux is known in x and t."""
import numpy as np
import pytest

from sciml.config import build
from sciml.equations import create
from sciml.equations.navier_stokes import NavierStokesConfig
from sciml.equations.ns_flux import FluxConfig, point_set, section_xs
from sciml.errors import Invalid
from sciml.solvers.pinn.geometry import Box, Rectangle, SpaceTime

H = 0.41
PARTS = {"inlet": ["left"], "outlet": ["right"], "walls": ["bottom", "top"]}


def channel(holes=((0.2, 0.2), 0.05, "cylinder")):
    return Rectangle((0.0, 2.2), (0.0, H), holes=[holes] if holes else [], parts=PARTS)


def profile(y):
    """The DFG inflow over U_mean = 1: 6 y (H - y) / H^2, flux H."""
    return 6 * y * (H - y) / H**2


def test_the_inflow_profile_has_no_flux_error_and_a_scaled_one_its_scale():
    pts, residual = point_set(FluxConfig(value=H, sections=10, points=8), channel(), velocity=1.0)
    y = pts[:, 1]
    np.testing.assert_allclose(residual({"u": profile(y)})["u"], 0.0, atol=1e-13)
    np.testing.assert_allclose(residual({"u": 1.03 * profile(y)})["u"], 0.03, atol=1e-13)


def test_sections_across_a_hole_are_left_out():
    cfg = FluxConfig(value=H, sections=21)  # x = 0.1, 0.2, ...: 0.2 crosses the cylinder (0.15 to 0.25)
    np.testing.assert_allclose(section_xs(cfg, channel(None)), np.linspace(0.1, 2.1, 21))
    kept = section_xs(cfg, channel())
    assert len(kept) == 20 and not np.any(np.isclose(kept, 0.2))


def test_a_flux_that_decays_in_x_and_grows_in_time_on_every_section_and_time():
    """u = (1 - 0.1 x)(1 + t) times the profile: the relative error is (1 - 0.1 x)(1 + t) - 1 per section and time,
    and the residual is in units of the velocity scale (u nondimensional)."""
    domain = SpaceTime(channel(), (0.0, 0.5))
    cfg = FluxConfig(value=2 * H, sections=5, points=6, times=3)
    pts, residual = point_set(cfg, domain, velocity=2.0)
    x, y, t = pts.T
    r = residual({"u": (1 - 0.1 * x) * (1 + t) * profile(y)})["u"]  # u = 2 times this, flux 2 H at t = 0, x = 0
    xs, ts = section_xs(cfg, domain), np.linspace(0.0, 0.5, 3)
    np.testing.assert_allclose(r, ((1 - 0.1 * xs[None, :]) * (1 + ts[:, None]) - 1).ravel(), atol=1e-13)


def make(domain, flux):
    raw = {"type": "navier_stokes", "Re": 100, "conditions": {p: {} for p in domain.parts}, "flux": flux}
    return create(build(NavierStokesConfig, raw), domain)


def test_the_equation_adds_the_flux_point_set():
    eq = make(channel(), {"value": H, "sections": 4, "points": 5})
    pts, residual = eq.point_sets()["flux"]
    assert pts.shape == (20, 2)
    np.testing.assert_allclose(residual({"u": profile(pts[:, 1])})["u"], 0.0, atol=1e-13)  # u in units of U = 1


@pytest.mark.parametrize("domain, flux, key", [
    (lambda: channel(), {"value": 0.0}, "flux.value"),
    (lambda: channel(((1.1, 0.2), 0.1, "hole")), {"value": H, "sections": 1}, "flux.sections"),
    (lambda: Box((0, 1), (0, 1), (0, 1), parts={"inlet": ["left"]}), {"value": 1.0}, "flux"),
])
def test_bad_flux_settings_name_their_key(domain, flux, key):
    with pytest.raises(Invalid) as e:
        make(domain(), flux)
    assert e.value.key.endswith(key)
