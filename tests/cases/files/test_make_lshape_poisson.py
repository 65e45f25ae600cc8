"""cases/files/make_lshape_poisson.py: P1 Poisson solutions on an L-shaped plate's unstructured mesh, written as a
file the data.file reader takes as a point set (the data of cases/lshape_poisson_deeponet.yaml)."""
import importlib.util
import os

import h5py
import numpy as np
import pytest
import skfem
import yaml
from skfem.models.poisson import laplace
from skfem.models.poisson import mass as mass_form

from sciml import cases
from sciml.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "cases", "files", "make_lshape_poisson.py")
CASE = os.path.join(ROOT, "cases", "lshape_poisson_deeponet.yaml")


@pytest.fixture(scope="module")
def make():
    spec = importlib.util.spec_from_file_location("make_lshape_poisson", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _p(t):
    return t * (1 - t) * (t - 0.5)  # zero at 0, 1/2 and 1: p(x) p(y) vanishes on every edge of the L


def test_the_solution_of_a_manufactured_source_converges_at_the_second_order(make):
    """u = p(x) p(y), f = -Laplacian u = -(p''(x) p(y) + p(x) p''(y)), p'' = 3 - 6 t: the nodal error of the P1
    solution falls as h^2."""
    errors = []
    for h in (0.1, 0.05, 0.025):
        m = make.plate_mesh(h)
        x, y = m.p
        exact = _p(x) * _p(y)
        u = make.Poisson(m).solve(-((3 - 6 * x) * _p(y) + _p(x) * (3 - 6 * y)))[0]
        errors.append(np.abs(u - exact).max() / np.abs(exact).max())
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert errors[-1] < 5e-3 and np.all((orders > 1.7) & (orders < 2.4)), (errors, orders)


def test_the_mesh_is_the_l_and_its_edges_hold_u_zero(make):
    m = make.plate_mesh(0.1)
    x, y = m.p
    assert not np.any((x > 0.5 + 1e-12) & (y > 0.5 + 1e-12))  # no node in the cut-out quarter
    corners = m.p[:, m.t]  # (2, 3, elements)
    a, b = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
    np.testing.assert_allclose(np.sum(np.abs(a[0] * b[1] - a[1] * b[0])) / 2, 0.75, rtol=1e-12)  # the L's area
    u = make.Poisson(m).solve(np.ones(m.p.shape[1]))[0]
    edge = np.unique(m.facets[:, m.boundary_facets()])
    assert np.all(u[edge] == 0.0) and np.all(np.delete(u, edge) > 0.0)  # a positive source lifts the interior


def test_the_file_is_a_point_set_the_case_reads_and_the_same_for_the_same_seed(make, tmp_path, capsys):
    path = tmp_path / "mesh.h5"
    assert make.main([str(path), "--samples", "30", "--h", "0.1"]) == 0
    assert f"wrote {path}: 30 samples at " in capsys.readouterr().out
    with h5py.File(path) as f:
        nodes, elements, fs, us = (f[k][()] for k in ("nodes", "elements", "f", "u"))
    n = len(nodes)
    assert nodes.shape == (n, 2) and fs.shape == us.shape == (30, n) and elements.max() == n - 1
    make.write(str(tmp_path / "few.h5"), samples=12, h=0.1)
    with h5py.File(tmp_path / "few.h5") as f:  # sample i depends on (seed, i) alone
        np.testing.assert_array_equal(f["f"][()], fs[:12])
        np.testing.assert_array_equal(f["u"][()], us[:12])
    # the file's own mesh, sources and solutions agree: K u = M f at the interior nodes, u = 0 on the edges
    m = skfem.MeshTri(nodes.T, elements.T)
    basis = skfem.Basis(m, skfem.ElementTriP1())
    stiffness, mass = skfem.asm(laplace, basis), skfem.asm(mass_form, basis)
    edge = basis.get_dofs().all()
    residual = np.delete(stiffness @ us.T - mass @ fs.T, edge, axis=0)
    assert np.abs(residual).max() < 1e-12 * np.abs(mass @ fs.T).max() and np.all(us[:, edge] == 0.0)
    with open(CASE) as fh:  # the shipped case on this small file
        case = yaml.safe_load(fh)
    case["data"].update({"file": str(path), "path": str(tmp_path / "data.h5"), "resolution": n, "n_train": 24,
                         "n_test": 6})
    case["training"].update({"epochs": 1, "batch_size": 8})
    (tmp_path / "case.yaml").write_text(yaml.safe_dump(case))
    assert main(["datagen", str(tmp_path / "case.yaml"), "--quiet"]) == 0
    cfg = cases.load(str(tmp_path / "case.yaml")).config
    with h5py.File(cfg.data.path) as f:
        assert f.attrs["grid_kind"] == "points" and f["train/inputs"].shape == (24, n, 1)
        np.testing.assert_allclose(f[f"test/{n}/outputs"][..., 0], us[24:], rtol=1e-6, atol=1e-9)


def test_the_shipped_case_names_the_command_that_makes_its_file(tmp_path, capsys):
    """A missing file is one line: its path and the script's command (data.made_by), exit 2."""
    missing = tmp_path / "absent.h5"
    assert main(["datagen", CASE, f"data.file={missing}", f"data.path={tmp_path / 'd.h5'}", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"data.file: {missing} does not exist; make it with `python " \
        "cases/files/make_lshape_poisson.py data/lshape_poisson.h5` (data.made_by)" in err, err
