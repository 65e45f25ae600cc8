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

TINY_DARCY = {
    "case": "tiny_darcy",
    "solver": "fno",
    "seed": 1,
    "data": {"generator": "darcy", "path": "PLACEHOLDER", "resolution": 9, "super_resolution": [17],
             "n_train": 40, "n_test": 8, "chunk": 24},
    "model": {"modes": [4, 4], "width": 8, "layers": 2, "padding": 3, "projection": [16]},
    "training": {"epochs": 10, "batch_size": 10, "lr": 1.0e-2, "schedule": {"type": "step", "every": 5},
                 "checkpoint_every": 2},
    "evaluation": {"every": 1, "batch_size": 16, "plots": 1},
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
