"""The ``sciml`` command: ``run``, ``show``, ``cases``, ``datagen``, ``export``, ``predict``, ``bench``.

``run``, ``show`` and ``datagen`` take a case file and ``dotted.key=value`` overrides, mixed with the flags in
any order. User mistakes (:class:`~sciml.errors.UserError`) print one line and exit with status 2; a training
failure (:class:`~sciml.errors.TrainingDiverged`) one line and status 3; bugs keep their traceback. Training
stopped by SIGTERM or SIGINT (:mod:`sciml.loop`) prints one line naming the checkpoint and the command that
continues, and exits with 128 + the signal's number: 143 (SIGTERM), 130 (SIGINT).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

import yaml

from .errors import Interrupted, TrainingDiverged, UserError, warn
from .version import __version__

EXIT_STATUSES = (
    (0, "completed"),
    (1, "a bug (with its traceback)"),
    (2, "a mistake in the input or a damaged file (one line naming it)"),
    (TrainingDiverged.exit_code, "training failed: the loss became NaN or infinite (the last good checkpoint kept)"),
    (130, "stopped by SIGINT (Ctrl-C); continue with --resume RUN_DIR"),
    (143, "stopped by SIGTERM; continue with --resume RUN_DIR"),
)


def _run(args) -> int:
    from . import cases, plots

    if args.force and args.resume:
        raise UserError("--force starts afresh and --resume continues: give one of them")
    case = cases.load(args.case, args.overrides) if args.case else _from_run(args.resume, args.overrides)
    if args.out and not args.resume:
        _claim(args.out, args.force)
    with plots.disabled() if args.no_plots else contextlib.nullcontext():
        summary = cases.run(case, args.out, args.resume, args.quiet)
    print(json.dumps({k: summary.get(k) for k in ("case", "steps", "wall_time_s", "steps_per_s", "metrics")}, indent=2))
    print(f"run folder: {summary.get('run_dir')}")
    return 0


def _files(folder: str) -> list[str]:
    """The files under ``folder``, its lock file and its ``log.txt`` aside: a folder of empty sub-folders holds
    no run yet, nor does one whose run stopped before it began (a missing dataset: only the log says so, and
    the next run appends to it)."""
    from .rundir import LOCK, LOG

    found = [os.path.join(root, f) for root, _, files in os.walk(folder) for f in files]
    return [f for f in found if f not in (os.path.join(folder, LOCK), os.path.join(folder, LOG))]


def _claim(out: str, force: bool) -> None:
    """``--out`` for a new run: a new or empty folder; or a run folder with ``force`` (its files removed first).

    A folder holding other files (no ``config.yaml``: not a run's) is never emptied; one a live run holds is
    refused naming it (:func:`sciml.rundir.hold`)."""
    import shutil

    from . import rundir

    if not os.path.exists(out):
        return
    if not os.path.isdir(out):
        raise UserError(f"{out}: exists and is not a folder; give a folder for --out")
    files = _files(out)
    if not files:
        return
    if not os.path.isfile(os.path.join(out, "config.yaml")):
        raise UserError(f"{out}: holds files and is not a run folder (no config.yaml); give an empty or new --out")
    with rundir.hold(out):
        if not force:
            raise UserError(f"{out}: holds a previous run; continue it with `sciml run --resume {out}`, start "
                            "afresh in it with --force, or give another --out")
        for path in (os.path.join(out, e) for e in os.listdir(out) if e != rundir.LOCK):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
    warn(f"--force: removed the previous run in {out} ({len(files)} files)")


def _from_run(folder: str, overrides):
    from . import cases

    if not folder:
        raise UserError("give a case file, or --resume RUN_DIR")
    return cases.load(os.path.join(folder, "config.yaml"), overrides)


def _case(args, command: str) -> str:
    if not args.case:
        raise UserError(f"give a case file: sciml {command} CASE.yaml [dotted.key=value ...] (see sciml {command} "
                        "--help)")
    return args.case


def _show(args) -> int:
    from . import cases
    from .config import to_dict

    case = cases.load(_case(args, "show"), args.overrides)
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


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _data(args) -> int:
    from .io import datafile

    print(datafile.info(args.file))
    return 0


def _datagen(args) -> int:
    from . import cases

    case = cases.load(_case(args, "datagen"), args.overrides)
    if args.out and getattr(case.config, "data", None) is not None:  # a quoted YAML string: the path as typed
        case = cases.load(args.case, [*args.overrides, "data.path=" + json.dumps(args.out)])
    path = cases.datagen(case, quiet=args.quiet, force=args.force, workers=args.workers)
    print(f"dataset: {path}")
    return 0


def _export(args) -> int:
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

    if args.tol is not None and not args.refine:
        raise UserError("--tol is where the refinement stops: give --refine STEPS too")
    if args.lr is not None and not args.refine:
        raise UserError("--lr is the refinement's learning rate: give --refine STEPS too")
    if args.method is not None and not args.refine:
        raise UserError("--method is how the refinement works: give --refine STEPS too")
    if os.path.isdir(args.model):
        return _predict_run(args)
    if args.estimate or args.refine:
        raise UserError(f"{args.model}: --estimate and --refine need the run folder (its physics and weights), not an "
                        f"export: sciml predict RUN_DIR {args.points} --estimate")
    call, meta = export.load(args.model)
    x = points.read(args.points, meta["inputs"])
    wrong = export.check_input(x.shape[1:], meta) or export.check_ranges(x, meta)
    if wrong:
        raise UserError(f"{args.points}: {wrong}")
    out = {k: np.asarray(v) for k, v in call(x).items()}
    return _write_predictions(args, x, meta["inputs"], out)


def _write_predictions(args, x, names: list[str], out: dict) -> int:
    from .compile import points

    dest = args.out or (args.points.rsplit(".", 1)[0] + ".pred." + args.points.rsplit(".", 1)[-1])
    points.write(dest, x, names, out)
    print(f"predictions: {dest} ({len(x)} samples, outputs {', '.join(out)})")
    return 0


def _predict_run(args) -> int:
    """``sciml predict RUN_DIR POINTS``: the run's model (:func:`sciml.results.load_run`), with ``--estimate`` each
    sample's error estimate and flag, with ``--refine`` refined; one line per sample for those."""
    from .compile import points
    from .results import load_run

    run = load_run(args.model)
    x = points.read(args.points, ["inputs"])
    out = run.predict(x, estimate=args.estimate, refine=args.refine, tol=args.tol, every=args.every, lr=args.lr,
                      method=args.method)
    for line in estimate_lines(out):
        print(line)
    return _write_predictions(args, x, ["inputs"], out)


def estimate_lines(out: dict) -> list[str]:
    """One line per sample of a prediction with estimates: the estimate (before and after a refinement), and
    whether it is flagged; none without estimates."""
    if "estimate" not in out:
        return []
    lines = []
    for i, guess in enumerate(out["estimate"]):
        before = (f"{out['estimate_before'][i]:.3g} -> " if "estimate_before" in out else "")
        steps = f" ({out['refine_steps'][i]} refinement steps)" if "refine_steps" in out else ""
        flag = f"  FLAGGED (>= {out['threshold'][i]:.3g})" if out["flagged"][i] else ""
        lines.append(f"sample {i}: estimate {before}{guess:.3g}{steps}{flag}")
    return lines


def benchmarks() -> dict:
    """``sciml bench NAME`` -> its ``main(argv) -> exit code`` (any other name is a suite under cases/suites/).

    Imported when a benchmark runs: these modules load JAX (1.5 s), which ``sciml --help`` need not wait for.
    """
    from .bench import autodiff, bfgs_update, fno_step, highdim, plate_step

    return {"autodiff": autodiff.main, "plate-step": plate_step.main, "fno-step": fno_step.main,
            "highdim": highdim.main, "bfgs-update": bfgs_update.main}


def _bench(args) -> int:
    from .bench import suite

    if not args.name:
        raise UserError(f"give a benchmark ({', '.join(benchmarks())}) or a suite (e.g. smoke): sciml bench NAME "
                        "[options] (see sciml bench --help)")
    main = benchmarks().get(args.name)
    return main(args.rest) if main else suite.main([args.name, *args.rest])


def _exit_statuses() -> str:
    return "exit status:\n" + "\n".join(f"  {code:<4} {what}" for code, what in EXIT_STATUSES)


def _case_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("case", nargs="?", metavar="CASE.yaml", help="the case file")
    p.add_argument("overrides", nargs="*", metavar="key=value",
                   help="overrides of the case, e.g. training.adam.steps=500 model.hidden=[32,32] (before or "
                        "after the flags)")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sciml", description="Scientific machine learning on JAX.",
                                epilog=_exit_statuses(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"sciml {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="train a case: sciml run CASE.yaml [key=value ...] [--out DIR]",
                       description="Train a case into a run folder.", epilog=_exit_statuses(),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _case_arguments(r)
    r.add_argument("--out", metavar="DIR", help="run folder (default runs/<case>/<timestamp>); a folder that "
                                                "holds a run is refused unless --force or --resume")
    r.add_argument("--force", action="store_true",
                   help="with --out: start afresh in a run folder, removing the previous run's files")
    r.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its latest checkpoint (the case file "
                                                       "is then optional; overrides still apply)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--no-plots", action="store_true", help="write no figures (the summary, metrics, fields and "
                                                           "checkpoints as always)")
    r.set_defaults(func=_run)

    s = sub.add_parser("show", help="print the resolved config of a case (checked as run checks it)",
                       description="Print the resolved config of a case; a case show accepts is one run accepts.")
    _case_arguments(s)
    s.set_defaults(func=_show)

    c = sub.add_parser("cases", help="list the shipped cases and suites, one line each (run one by its name)",
                       description="List the shipped cases and suites, one line each (run one by its name).")
    c.set_defaults(func=_cases)

    g = sub.add_parser("datagen", help="generate a case's training data with its classical solver",
                       description="Generate a case's training data with its classical solver.")
    _case_arguments(g)
    g.add_argument("--out", metavar="PATH", help="the dataset file to write (sets the case's data.path; default: "
                                                 "data.path as the case gives it)")
    g.add_argument("--force", action="store_true", help="overwrite an existing dataset")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.add_argument("--workers", type=_positive, default=1, metavar="N",
                   help="processes solving chunks in parallel (for CPU solvers such as Darcy; same data)")
    g.set_defaults(func=_datagen)

    d = sub.add_parser("data", help="look into a dataset file: sciml data info FILE (HDF5, MATLAB v5 or v7.3)",
                       description="Look into a dataset file (HDF5, MATLAB v5 or v7.3) as sciml reads it.")
    d.add_argument("action", choices=["info"], help="info: the file's kind and each numeric array's key, shape (as "
                                                     "read: MATLAB v7.3's axes reversed back), type, range, NaNs")
    d.add_argument("file", metavar="FILE", help="the dataset file")
    d.set_defaults(func=_data)

    e = sub.add_parser("export", help="serialise a trained run's prediction function (jax.export, StableHLO)",
                       description="Serialise a trained run's prediction function (jax.export, StableHLO).")
    e.add_argument("run_dir", metavar="RUN_DIR", help="a trained run's folder")
    e.add_argument("--out", help="FILE.jaxexport (default RUN_DIR/model.jaxexport)")
    e.set_defaults(func=_export)

    q = sub.add_parser("predict", help="evaluate an exported model or a run's on points from a CSV or HDF5 file",
                       description="Evaluate an exported model, or a run folder's, on points from a CSV or HDF5 file.")
    q.add_argument("model", help="FILE.jaxexport, or a run folder RUN_DIR")
    q.add_argument("points", help="POINTS.csv (header naming the inputs) or POINTS.h5")
    q.add_argument("--out", help="output file (default POINTS.pred.csv / .h5)")
    q.add_argument("--estimate", action="store_true",
                   help="with RUN_DIR of an operator with physics (plate, darcy): each sample's error estimate and a "
                        "flag where it reaches the threshold calibrated on the run's test set")
    q.add_argument("--refine", type=_positive, default=0, metavar="STEPS",
                   help="with RUN_DIR: refine each input's prediction by up to STEPS steps of its physics, keeping "
                        "the answer of lowest energy among those whose estimate fell to 0.4 times the trained "
                        "answer's with their energy down by 2e-4 of its size, or whose energy fell by a quarter, else "
                        "the trained answer; inputs estimated below half the flag threshold are left as trained "
                        "(implies --estimate)")
    q.add_argument("--method", choices=("field", "weights"),
                   help="with --refine: 'weights' fine-tunes a copy of the weights by Adam; 'field' (a plate's "
                        "only) corrects the decoded field by STEPS conjugate-gradient iterations on the plate's "
                        "energy: about ten times faster and closer on a grid finer than the training grid, but on "
                        "the training grid it can make an in-distribution answer worse. Default: 'field' for a plate "
                        "on a grid finer than its training grid (without --lr), else 'weights'")
    q.add_argument("--tol", type=float, metavar="T", help="with --refine: stop once the estimate is below T")
    q.add_argument("--every", type=_positive, metavar="K",
                   help="with --refine: evaluate the estimate every K steps (default 100 for --method field, 10 for "
                        "weights)")
    q.add_argument("--lr", type=_positive_float, metavar="RATE",
                   help="with --refine --method weights: the first learning rate (default 1e-3, decaying along a "
                        "cosine for a plate)")
    q.set_defaults(func=_predict)

    b = sub.add_parser("bench", help="benchmarks: autodiff, bfgs-update, plate-step, fno-step, highdim, or a suite "
                                     "under cases/suites/",
                       description="Run a benchmark (autodiff, plate-step, fno-step, highdim, bfgs-update) or a suite "
                                   "under cases/suites/ (smoke, standard, autodiff). `sciml bench NAME --help` gives "
                                   "its options.")
    b.add_argument("name", nargs="?", metavar="NAME", help="autodiff, plate-step, or a suite name or YAML path")
    b.add_argument("rest", nargs=argparse.REMAINDER, metavar="...", help="the benchmark's own options")
    b.set_defaults(func=_bench)
    return p


def _case_and_overrides(words) -> tuple[str | None, list[str]]:
    """The case file (the first word that is a YAML path or has no ``=``) and the overrides, in the order typed."""
    words = [w for w in words if w is not None]
    at = next((i for i, w in enumerate(words) if w.endswith((".yaml", ".yml")) or "=" not in w), None)
    return (None, words) if at is None else (words[at], words[:at] + words[at + 1:])


def main(argv=None) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")  # the command draws off-screen (set before matplotlib loads)
    p = parser()
    args, extra = p.parse_known_args(argv)  # overrides after a flag come back as extra
    if extra and (not hasattr(args, "overrides") or any(a.startswith("-") for a in extra)):
        p.error("unrecognized arguments: " + " ".join(extra))
    if args.command is None:
        p.print_help()
        return 2
    if hasattr(args, "overrides"):
        args.case, args.overrides = _case_and_overrides([args.case, *args.overrides, *extra])
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
    except BrokenPipeError:  # the reader stopped reading (`sciml cases | head`): stop quietly, as SIGPIPE would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
