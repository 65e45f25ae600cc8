"""The four-device run of ``test_devices.py`` (needs ``XLA_FLAGS=--xla_force_host_platform_device_count=4``).

``python devices_worker.py PINN_CASE FNO_CASE OUT_DIR`` trains each case through :func:`sciml.cases.run` on
one device and on four (the FNO also on a [data 2, channels 2] mesh) and prints, as JSON, each run's
metrics rows and the layout its summary reports.
"""
import csv
import json
import os
import sys

import jax

RUNS = {"pinn": {"one": ["parallel.devices=1"], "four": ["parallel.devices=4"]},
        "fno": {"one": ["parallel.devices=1"], "four": ["parallel.devices=4"],
                "channels": ["parallel.devices=4", "parallel.mesh=[2,2]"]}}


def no_pictures():
    """Skip drawing PNGs (a third of the time here, and not what is tested)."""
    from sciml import plots
    from sciml.solvers.fno import plots as fno_plots
    from sciml.solvers.pinn.output import plots as pinn_plots

    for module, names in ((plots, ["loss_history", "save"]), (pinn_plots, ["field_maps", "flow", "profile"]),
                          (fno_plots, ["history", "sample"])):
        for name in names:
            setattr(module, name, lambda *args, **kwargs: None)


def main(pinn_case, fno_case, out):
    jax.config.update("jax_enable_x64", True)  # the PINN case runs in float64, the FNO case in float32
    from sciml import cases

    no_pictures()

    result = {}
    for solver, path in (("pinn", pinn_case), ("fno", fno_case)):
        for name, overrides in RUNS[solver].items():
            case = cases.load(path, overrides)
            if solver == "fno":  # the PINN case has no observations to make
                cases.datagen(case)
            folder = os.path.join(out, f"{solver}_{name}")
            summary = cases.run(case, out=folder, quiet=True)
            with open(os.path.join(folder, "metrics.csv"), newline="") as fh:
                rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)]
            result[f"{solver}_{name}"] = {"rows": rows, "parallel": summary["parallel"],
                                          "metrics": summary["metrics"]}
    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:4])
