"""Tiny inverse cases (the plate with unknown D, and D with q0) and their data, shared by the inverse tests."""
import contextlib
import copy

from cli_cases import TINY_PLATE, write_case

from sciml import cases
from sciml.solvers.pinn.features import observations

D_TRUE = 2.0


def tiny_identify(tmp_path, unknowns=None, **changes) -> dict:
    """The tiny plate with ``D`` (truth 2, from 1) unknown, observed at 3 x 3 sensors (data made by datagen)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = copy.deepcopy(TINY_PLATE)
    data["case"] = "tiny_identify"
    data["equation"].update(D=D_TRUE, q0=1.0)
    data["unknowns"] = unknowns or {"D": {"initial": 1.0, "bounds": [0.1, 10.0]}}
    data["data"] = {"path": str(tmp_path / "sensors.csv"), "fields": ["w"], "noise": 0.0,
                    "sensors": {"layout": "grid", "points": [3, 3]}}
    return write_case_dict(tmp_path, data, **changes)


def write_case_dict(tmp_path, data, name="identify.yaml", **changes) -> dict:
    path = write_case(tmp_path, data, name=name, **changes)
    case = cases.load(path)
    observations.datagen(case.config, quiet=True)
    return {"path": path, "case": case}


PATCH_TRUE = {"x": 1.2, "y": 1.4, "width": 0.6, "height": 0.8}


def tiny_locate(tmp_path, **changes) -> dict:
    """The tiny plate under a patch load (truth ``PATCH_TRUE``, pressure 1) whose centre is unknown (from
    (0.8, 1.8)), observed at 4 x 4 sensors (data made by datagen)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = copy.deepcopy(TINY_PLATE)
    data["case"] = "tiny_locate"
    del data["equation"]["load"]
    data["equation"].update(q0=1.0, patch=dict(PATCH_TRUE))
    data["unknowns"] = {"patch.x": {"initial": 0.8, "bounds": [0.4, 1.6], "scale": "linear"},
                        "patch.y": {"initial": 1.8, "bounds": [0.5, 2.5], "scale": "linear"}}
    data["data"] = {"path": str(tmp_path / "sensors.csv"), "fields": ["w"], "noise": 0.0,
                    "sensors": {"layout": "grid", "points": [4, 4]}}
    data["model"]["hidden"] = [16, 16]
    data["sampling"]["interior"] = 256
    data["training"].update(adam={"steps": 300, "lr": 1.0e-2}, log_every=50, checkpoint_every=300)
    return write_case_dict(tmp_path, data, name="locate.yaml", **changes)


@contextlib.contextmanager
def constant_only(tmp_path, section: str):
    """The path of a case of a test-only equation that reads its number ``k`` as a Python float (``float(k)``
    on building), with ``section`` (``unknowns`` or ``parameters``) naming ``k``: loading must refuse it. The
    equation is registered while the context lasts."""
    from dataclasses import dataclass
    from typing import Literal

    import sciml.equations
    from sciml.config import spec

    @dataclass
    class ConstantOnlyConfig:
        type: Literal["constant_only"]
        k: float = spec(1.0, gt=0.0)

    class ConstantOnly(sciml.equations.Equation):
        fields, coords = ("u",), ("x", "y")

        def __init__(self, config, domain):
            self.k = float(config.k)  # a constant: no traced value can pass

        def to_nondim(self, points):
            return points

        def to_physical(self, points):
            return points

        def interior(self, d):
            return {"pde": d["u_xx"] + d["u_yy"] + self.k}

        def boundary(self, part, d, normal):
            return {"u": d["u"]}

    sciml.equations.register("constant_only", ConstantOnlyConfig, ConstantOnly)
    data = {"case": "constant_only", "solver": "pinn", "geometry": {"type": "rectangle", "x": [0, 1], "y": [0, 1]},
            "equation": {"type": "constant_only", "k": 1.0}, "model": {"hidden": [4]},
            "training": {"adam": {"steps": 1}}}
    data[section] = {"k": {"initial": 1.0, "bounds": [0.5, 2.0]}} if section == "unknowns" else \
        {"k": {"range": [0.5, 2.0]}}
    try:
        yield write_case(tmp_path, data, name="constant_only.yaml")
    finally:
        sciml.equations.EQUATIONS.pop("constant_only", None)


DAMAGE_TRUE = {"x": 0.8, "y": 1.8, "radius": 0.5, "drop": 0.3}


def tiny_damage(tmp_path, unknowns=None, **changes) -> dict:
    """The tiny plate (D 1) with a damaged zone (``DAMAGE_TRUE``) whose rigidity field is unknown (a [6, 6]
    network from D = 1 everywhere; or ``unknowns``), observed at 4 x 4 sensors (data made by datagen)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = copy.deepcopy(TINY_PLATE)
    data["case"] = "tiny_damage"
    data["equation"].update(q0=1.0, damage=dict(DAMAGE_TRUE))
    data["unknowns"] = unknowns or {"D": {"initial": 1.0, "bounds": [0.5, 1.5], "scale": "linear",
                                          "field": {"hidden": [6, 6]}}}
    data["data"] = {"path": str(tmp_path / "sensors.csv"), "fields": ["w"], "noise": 0.0,
                    "sensors": {"layout": "grid", "points": [4, 4]}}
    return write_case_dict(tmp_path, data, name="damage.yaml", **changes)
