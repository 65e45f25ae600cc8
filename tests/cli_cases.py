"""Tiny case dictionaries and helpers shared by the CLI and driver tests."""
import copy

import yaml

TINY_PLATE = {
    "case": "tiny_plate",
    "solver": "pinn",
    "seed": 3,
    "dtype": "float64",
    "geometry": {"type": "rectangle", "x": [0.0, 2.0], "y": [0.0, 3.0]},
    "equation": {"type": "kirchhoff_plate", "D": 1.0, "nu": 0.25,
                 "load": "sin(pi * x / 2) * sin(pi * y / 3)"},
    "model": {"hidden": [8, 8], "activation": "tanh"},
    "sampling": {"interior": 64, "boundary": 8, "method": "sobol"},
    "training": {"adam": {"steps": 40, "lr": 3.0e-3}, "lbfgs": {"steps": 0}, "log_every": 10,
                 "checkpoint_every": 10},
    "evaluation": {"grid": [11, 13]},
}


def write_case(tmp_path, data=None, name="case.yaml", **changes):
    data = copy.deepcopy(data or TINY_PLATE)
    for dotted, value in changes.items():
        node = data
        *head, last = dotted.split("__")
        for k in head:
            node = node.setdefault(k, {})
        node[last] = value
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return str(path)
