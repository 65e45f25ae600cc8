"""``equation.start``: the developed flow a case begins from (values bilinear between the file's nodes, the
rules of where ``start`` may stand, a missing file, the check against the file's forces)."""
import h5py
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from sciml.config import build
from sciml import equations
from sciml.equations import create, ns_start
from sciml.equations.navier_stokes import NavierStokesConfig
from sciml.equations.ns_dfg import dfg_cylinder
from sciml.errors import ConfigError, Invalid, MissingFile
from sciml.solvers.pinn.geometry import Rectangle, SpaceTime

from dfg_fields import oscillating_potential

PARTS = {"inlet": ["left"], "outlet": ["right"], "walls": ["bottom", "top"]}
INLET = {"u": "4 * 1.5 * y * (0.41 - y) / 0.41**2", "v": 0}


def channel(parts=PARTS, time=(0.0, 1.0)):
    space = Rectangle((0.0, 2.2), (0.0, 0.41), holes=[((0.2, 0.2), 0.05, "cylinder")], parts=parts)
    return SpaceTime(space, time) if time else space


def write_start(path, history=None, time=8.0):
    """Nodes every 0.01 (cell centres) with u = 2x + 3y, v = x y, p = 1 - x: bilinear, so interpolation is exact;
    made (its attributes say) with ``time`` and the other settings' defaults."""
    x, y = 0.005 + 0.01 * np.arange(220), 0.005 + 0.01 * np.arange(41)
    X, Y = np.meshgrid(x, y)
    t = np.linspace(0.0, 1.0, 501)
    history = history or {"t": t, "c_D": 3.2 + 0 * t, "c_L": np.sin(2 * np.pi * 3 * t), "delta_p": 0 * t}
    with h5py.File(path, "w") as f:
        f["x"], f["y"], f["u"], f["v"], f["p"] = x, y, 2 * X + 3 * Y, X * Y, 1 - X
        for k, v in history.items():
            f[f"history/{k}"] = v
        f.attrs.update(time=time, cells_per_diameter=40, u_lat=0.05, ramp=2.0)
    return str(path)


def make(domain, conditions=None, **cfg):
    conditions = conditions or {"inlet": INLET, "outlet": {}, "walls": {}, "cylinder": {},
                                "initial": {"u": "start", "v": "start"}}
    raw = {"type": "navier_stokes", "Re": 100, "velocity": 1.0, "length": 0.1, "conditions": conditions, **cfg}
    return create(build(NavierStokesConfig, raw), domain)


def test_start_values_are_bilinear_between_the_nodes(tmp_path):
    path = write_start(tmp_path / "start.h5")
    eq = make(channel(), start={"path": path, "time": 8.0})
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(0.005, 2.195, 50), rng.uniform(0.005, 0.405, 50), np.zeros(50)])
    with jax.enable_x64(True):
        value = eq._conditions["initial"]["u"]
        got = {q: np.asarray(eq._conditions["initial"][q](q, jnp.asarray(pts))) for q in ("u", "v")}
        assert value is not None
    np.testing.assert_allclose(got["u"], 2 * pts[:, 0] + 3 * pts[:, 1], rtol=1e-12)
    np.testing.assert_allclose(got["v"], pts[:, 0] * pts[:, 1], rtol=1e-12)


@pytest.mark.parametrize("domain, conditions, start, key, words", [
    (channel(), {"initial": {"u": "start"}}, None, "conditions.initial.u", "needs equation.start"),
    (channel(), {"inlet": {"u": "start"}}, {"path": "s.h5", "time": 1.0}, "conditions.inlet.u", "initial values"),
    (channel(time=None), {}, {"path": "s.h5", "time": 1.0}, "start", "unsteady 2D"),
    (channel(parts={"inlet": ["left", "right"], "walls": ["bottom", "top"]}), {},
     {"path": "s.h5", "time": 1.0}, "start", "the part inlet to be the sides ['left']"),
    (channel(), {"inlet": {"u": 1, "v": 0.1}}, {"path": "s.h5", "time": 1.0}, "start", "v = 0"),
])
def test_where_start_may_stand(domain, conditions, start, key, words):
    base = {p: {} for p in domain.parts}
    base.update({"inlet": INLET} if "inlet" in domain.parts else {})
    base.update(conditions)
    with pytest.raises(Invalid) as e:
        make(domain, base, **({"start": start} if start else {}))
    assert e.value.key == key and words in e.value.message


def test_a_missing_start_names_the_command_and_a_check_traces_zeros(tmp_path):
    eq = make(channel(), start={"path": str(tmp_path / "none.h5"), "time": 8.0})
    value = eq._conditions["initial"]["u"]
    with pytest.raises(MissingFile) as e:
        value("u", jnp.zeros((2, 3)))
    assert str(e.value.within("cases/x.yaml", ["seed=1"])) == (
        f"cases/x.yaml: equation.start.path: start file {tmp_path / 'none.h5'} does not exist; make it with "
        "`sciml datagen cases/x.yaml seed=1`")
    with equations.checking():
        assert np.all(np.asarray(value("u", jnp.ones((2, 3)))) == 0)


def test_a_start_made_with_other_settings_is_refused(tmp_path):
    eq = make(channel(), start={"path": write_start(tmp_path / "s.h5", time=7.0), "time": 8.0})
    with pytest.raises(ConfigError) as e:
        eq._conditions["initial"]["u"]("u", jnp.zeros((2, 3)))
    assert e.value.key == "equation.start" and "was made with {'time': 7.0" in e.value.message
    assert "the case asks for {'time': 8.0" in e.value.message and "--force" in e.value.message
    with equations.checking():  # loading the case (to make the file again) does not read it
        assert np.all(np.asarray(eq._conditions["initial"]["u"]("u", jnp.ones((2, 3)))) == 0)


def test_a_start_records_its_precision_and_one_that_records_none_was_float64(tmp_path):
    old = write_start(tmp_path / "old.h5")  # no dtype attribute: made before the lattice's precision was a setting
    u = lambda eq: eq._conditions["initial"]["u"]("u", jnp.asarray([[0.5, 0.2, 0.0]]))
    assert float(u(make(channel(), start={"path": old, "time": 8.0}))[0]) == pytest.approx(1.6)
    with pytest.raises(ConfigError) as e:
        u(make(channel(), start={"path": old, "time": 8.0, "dtype": "float32"}))
    assert "'dtype': 'float64'" in e.value.message and "'dtype': 'float32'" in e.value.message
    new = write_start(tmp_path / "new.h5")
    with h5py.File(new, "a") as f:
        f.attrs["dtype"] = "float32"
    assert float(u(make(channel(), start={"path": new, "time": 8.0, "dtype": "float32"}))[0]) == pytest.approx(1.6)


def test_the_dfg_check_compares_with_the_start_forces(tmp_path):
    """A field whose forces are those of the file (tests/dfg_fields.py): the rms differences vanish and the
    file's own St and maxima are reported."""
    f, e, gamma, A = 3.0, 0.2, 0.05, 0.05
    k = 2 / 0.1
    t = np.linspace(0.0, 1.0, 2001)
    phase = 2 * np.pi * f * (t - 0.05)  # three upward crossings in [0, 1]
    history = {"t": t, "c_D": k * 2 * np.pi * A**2 * e * 2 * np.pi * f * np.cos(phase),
               "c_L": k * gamma * (1 + e * np.sin(phase)), "delta_p": 0 * t}
    eq = make(channel(), start={"path": write_start(tmp_path / "s.h5", history), "time": 8.0},
              checks=["dfg_cylinder"])
    predict = oscillating_potential(f, e, gamma, delay=0.05)

    check = dfg_cylinder(eq, predict)
    m = check.metrics
    assert m["c_D_lbm_rms_diff"] < 1e-3 * m["c_D_max"] and m["c_L_lbm_rms_diff"] < 1e-3 * m["c_L_max"]
    assert m["St_lbm"] == pytest.approx(m["St"], rel=1e-3) and m["c_L_max_lbm"] == pytest.approx(m["c_L_max"], rel=1e-3)
    curves = check.series["cylinder_forces"]["curves"]
    assert set(curves) == {"c_D", "c_L", "c_D (surface)", "c_L (surface)", "c_D (lattice Boltzmann)",
                           "c_L (lattice Boltzmann)"}
    # the line integral's too: its lift is the same; its drag assumes no slip, which this potential flow breaks
    assert m["c_L_surface_lbm_rms_diff"] < 1e-3 * m["c_L_max"] and np.isfinite(m["c_D_surface_lbm_rms_diff"])
    assert [check.maps[f"vorticity_{i}"]["where"] for i in range(3)] == ["t = 0", "t = 0.5", "t = 1"]
