"""The equation contract: the hooks' defaults are what the solvers may rely on without asking."""
import jax
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


def _plate(**changes):
    from sciml.config import build
    from sciml.equations.plate import PlateConfig
    from sciml.solvers.pinn.geometry import Rectangle

    section = {"type": "kirchhoff_plate", "E": 2.0e11, "nu": 0.25, "thickness": 0.01, "load": "980 * x * y",
               "aspect": 1.5, **changes}
    return KirchhoffPlate(build(PlateConfig, section), Rectangle((0.0, 2.0), (0.0, 3.0)))


def test_an_equation_is_a_pytree_of_its_float_numbers():
    """The leaves are the section's float numbers (an expression's field and the integers are its structure);
    unflattening with other leaves is ``Equation.at``; ``jax.jit`` and ``jax.grad`` take an equation as an
    argument, its numbers traced; placeholders and numbers that pose no equation (a gradient's) give a shell."""
    eq = _plate()
    leaves, tree = jax.tree_util.tree_flatten(eq)
    names = tree.node_data()[1].names
    assert dict(zip(names, leaves)) == {"E": 2.0e11, "nu": 0.25, "thickness": 0.01, "aspect": 1.5}
    new = {"E": 3.0e11, "nu": 0.3, "thickness": 0.02, "aspect": 1.5}
    other = jax.tree_util.tree_unflatten(tree, [new[n] for n in names])
    at = eq.at(new)
    assert type(other) is KirchhoffPlate and (other.D, other.c, other.q0) == (at.D, at.c, at.q0)
    assert jax.tree_util.tree_structure(at) == tree and jax.tree_util.tree_leaves(at) == [new[n] for n in names]
    with jax.enable_x64(True):
        assert float(jax.jit(lambda e: e.D)(eq)) == pytest.approx(eq.D, rel=1e-14)
        grad = jax.grad(lambda e: e.D)(eq)  # D = E t^3 / (12 (1 - nu^2))
    g = dict(zip(names, jax.tree_util.tree_leaves(grad)))
    assert g["E"] == pytest.approx(eq.D / 2.0e11, rel=1e-12)
    assert g["thickness"] == pytest.approx(3 * eq.D / 0.01, rel=1e-12)
    assert g["nu"] == pytest.approx(eq.D * 2 * 0.25 / (1 - 0.25**2), rel=1e-12) and g["aspect"] == 0.0
    shell = jax.tree_util.tree_map(lambda x: object(), eq)
    assert jax.tree_util.tree_structure(shell) == tree and not hasattr(shell, "D")
    assert jax.tree_util.tree_leaves(Minimal()) == []  # built without a section: no leaves, itself back
    alone = Minimal()
    assert jax.tree_util.tree_map(lambda x: x, alone) is alone
