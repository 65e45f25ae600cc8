"""The ``sciml`` command: ``run``, ``show`` (and more sub-commands as the suite grows).

User mistakes (:class:`~sciml.errors.UserError`) print one line and exit with status 2; bugs keep their
traceback. Training stopped by SIGTERM or SIGINT (:mod:`sciml.loop`) prints one line naming the checkpoint and
the command that continues, and exits with 128 + the signal's number: 143 (SIGTERM), 130 (SIGINT).
"""
from __future__ import annotations

import argparse
import json
import sys

import yaml

from .errors import Interrupted, UserError


def _run(args) -> int:
    from . import cases

    case = cases.load(args.case, args.overrides) if args.case else _from_run(args.resume, args.overrides)
    summary = cases.run(case, args.out, args.resume, args.quiet)
    print(json.dumps({k: summary.get(k) for k in ("case", "steps", "wall_time_s", "steps_per_s", "metrics")}, indent=2))
    print(f"run folder: {summary.get('run_dir')}")
    return 0


def _from_run(folder: str, overrides):
    import os

    from . import cases

    if not folder:
        raise UserError("give a case file, or --resume RUN_DIR")
    return cases.load(os.path.join(folder, "config.yaml"), overrides)


def _show(args) -> int:
    from . import cases
    from .config import to_dict

    case = cases.load(args.case, args.overrides)
    print(yaml.safe_dump(to_dict(case.config), sort_keys=False), end="")
    return 0


def _cases(args) -> int:
    from .catalog import listing

    print(listing())
    return 0


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def _datagen(args) -> int:
    from . import cases

    case = cases.load(args.case, args.overrides)
    path = cases.datagen(case, quiet=args.quiet, force=args.force, workers=args.workers)
    print(f"dataset: {path}")
    return 0


def _export(args) -> int:
    import os

    from . import cases
    from .compile import export

    out = args.out or os.path.join(args.run_dir, "model" + export.SUFFIX)
    with cases.trained(args.run_dir) as (case, (fn, shape, dtype, meta)):  # traced in the model's own dtype
        paths = export.save(out, fn, shape, dtype, {"case": case.config.case, "run_dir": args.run_dir, **meta})
    print("exported: " + ", ".join(paths))
    return 0


def _predict(args) -> int:
    import numpy as np

    from .compile import export, points

    call, meta = export.load(args.model)
    x = points.read(args.points, meta["inputs"])
    wrong = export.check_input(x.shape[1:], meta)
    if wrong:
        raise UserError(f"{args.points}: {wrong}")
    out = {k: np.asarray(v) for k, v in call(x).items()}
    dest = args.out or (args.points.rsplit(".", 1)[0] + ".pred." + args.points.rsplit(".", 1)[-1])
    points.write(dest, x, meta["inputs"], out)
    print(f"predictions: {dest} ({len(x)} samples, outputs {', '.join(out)})")
    return 0


def benchmarks() -> dict:
    """``sciml bench NAME`` -> its ``main(argv) -> exit code`` (any other name is a suite under cases/suites/).

    Imported when a benchmark runs: these modules load JAX (1.5 s), which ``sciml --help`` need not wait for.
    """
    from .bench import autodiff, plate_step

    return {"autodiff": autodiff.main, "plate-step": plate_step.main}


def _bench(args) -> int:
    from .bench import suite

    main = benchmarks().get(args.name)
    return main(args.rest) if main else suite.main([args.name, *args.rest])


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sciml", description="Scientific machine learning on JAX.")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="train a case: sciml run CASE.yaml [dotted.key=value ...]")
    r.add_argument("case", nargs="?", help="case file (optional with --resume)")
    r.add_argument("overrides", nargs="*", help="dotted.key=value overrides")
    r.add_argument("--out", help="run folder (default runs/<case>/<timestamp>)")
    r.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its latest checkpoint")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_run)

    s = sub.add_parser("show", help="print the resolved config of a case")
    s.add_argument("case")
    s.add_argument("overrides", nargs="*")
    s.set_defaults(func=_show)

    c = sub.add_parser("cases", help="list the shipped cases and suites, one line each (run one by its name)")
    c.set_defaults(func=_cases)

    g = sub.add_parser("datagen", help="generate a case's training data with its classical solver")
    g.add_argument("case")
    g.add_argument("overrides", nargs="*")
    g.add_argument("--force", action="store_true", help="overwrite an existing dataset")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.add_argument("--workers", type=_positive, default=1, metavar="N",
                   help="processes solving chunks in parallel (for CPU solvers such as Darcy; same data)")
    g.set_defaults(func=_datagen)

    e = sub.add_parser("export", help="serialise a trained run's prediction function (jax.export, StableHLO)")
    e.add_argument("run_dir")
    e.add_argument("--out", help="FILE.jaxexport (default RUN_DIR/model.jaxexport)")
    e.set_defaults(func=_export)

    q = sub.add_parser("predict", help="evaluate an exported model on points from a CSV or HDF5 file")
    q.add_argument("model", help="FILE.jaxexport")
    q.add_argument("points", help="POINTS.csv (header naming the inputs) or POINTS.h5")
    q.add_argument("--out", help="output file (default POINTS.pred.csv / .h5)")
    q.set_defaults(func=_predict)

    b = sub.add_parser("bench", help="benchmarks: autodiff, plate-step, or a suite under cases/suites/",
                       add_help=False)
    b.add_argument("name")
    b.add_argument("rest", nargs=argparse.REMAINDER)
    b.set_defaults(func=_bench)
    return p


def main(argv=None) -> int:
    import os

    os.environ.setdefault("MPLBACKEND", "Agg")  # the command draws off-screen (set before matplotlib loads)
    args = parser().parse_args(argv)
    if getattr(args, "case", None) and "=" in args.case and not args.case.endswith((".yaml", ".yml")):
        args.overrides, args.case = [args.case, *args.overrides], None
    try:
        return args.func(args)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except Interrupted as e:
        print(e, file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
