"""The equation contract: the hooks' defaults are what the solvers may rely on without asking."""
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.equations import Equation, KirchhoffPlate, NavierStokes
from sciml.equations.base import missing


class Minimal(Equation):
    """Only the abstract members: u_xx = 0 on [2, 6] x [-1, 1], scaled to [-1, 1]^2."""

    fields, coords = ("u", "v"), ("x", "y")
    centre, half = np.array([4.0, 0.0]), np.array([2.0, 1.0])

    def to_nondim(self, x):
        return (x - self.centre) / self.half

    def to_physical(self, xh):
        return self.centre + self.half * xh

    def interior(self, d):
        return {"pde": d["u_xx"]}

    def boundary(self, part, d, normal):
        return {}


class _Lookup(dict):
    fields = ("u", "v")


def test_shipped_equations_are_complete():
    assert missing(KirchhoffPlate) == [] and missing(NavierStokes) == []
    assert missing(Equation) == ["boundary", "coords", "fields", "interior", "to_nondim", "to_physical"]


def test_defaults_of_the_hooks():
    eq = Minimal()
    assert (dict(eq.aliases), tuple(eq.periodic), eq.gauge_free, dict(eq.vectors), eq.units) == ({}, (), (), {}, None)
    assert eq.point_sets() == {} and eq.checks(lambda x: {}) == [] and eq.reference(np.zeros((3, 2))) is None
    assert eq.derived_names == ("u", "v")
    d = _Lookup(u=jnp.arange(3.0), v=jnp.ones(3))
    assert set(eq.derived(d)) == {"u", "v"} and eq.derived(d)["u"] is d["u"]
    Minimal.check_geometry(None, None)  # any domain


def test_default_scaling_is_read_off_to_physical():
    centre, scale = Minimal().scaling()
    np.testing.assert_array_equal(centre, [4.0, 0.0])
    np.testing.assert_array_equal(scale, [2.0, 1.0])
    x = np.array([[3.0, 0.5], [6.0, -1.0]])
    np.testing.assert_allclose((x - centre) / scale, Minimal().to_nondim(x))


def test_periodic_pairs_without_a_residual_say_so():
    eq = Minimal()
    eq.periodic = [("left", "right")]
    with pytest.raises(NotImplementedError, match=r"Minimal declares periodic pairs \[\('left', 'right'\)\]"):
        eq.periodic_residual(None, None)
