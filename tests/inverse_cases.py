"""Tiny inverse cases (the plate with unknown D, and D with q0) and their data, shared by the inverse tests."""
import copy

from sciml import cases
from sciml.solvers.pinn import observations

from cli_cases import TINY_PLATE, write_case

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
