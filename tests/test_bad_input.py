"""Malformed case files and overrides, as a user types them: each is one line on stderr naming the file (or
the command line) and what is wrong, exit status 2, no traceback, and nothing computed.

Every row goes through the real entry, ``sciml.cli.main``, as ``sciml show`` (which must refuse everything
``run`` would); the ``run`` rows also show that no run folder was made.
"""
from pathlib import Path

import pytest
import yaml

from sciml.cli import main

from cli_cases import TINY_DARCY, write_case

PATCH = "{x: 1.0, y: 1.5, width: 0.4, height: 0.6}"
DAMAGE = "{x: 1.0, y: 1.5, radius: 0.3, drop: 0.3}"
ON_PATCH = f"equation={{type: kirchhoff_plate, D: 1, nu: 0.25, q0: 1, patch: {PATCH}}}"  # instead of the load
GAMMA = yaml.safe_dump({**TINY_DARCY, "training": {**TINY_DARCY["training"], "schedule": {"type": "step", "every": 5,
                                                                                      "gamma": 0.5}}}).encode()
_DEEPONET = {**TINY_DARCY, "model": {"type": "deeponet", "branch": [16], "trunk": [16], "basis": 8}}
DEEPONET = yaml.safe_dump(_DEEPONET).encode()  # the tiny Darcy operator as a DeepONet
_FILE = {k: v for k, v in TINY_DARCY["data"].items() if k != "generator"}
ON_FILE = yaml.safe_dump({**_DEEPONET, "data": {**_FILE, "file": "d.h5", "inputs": "a", "outputs": "u"}}).encode()
HEAT = (Path(__file__).parent.parent / "cases" / "heat_bracket.yaml").read_bytes()  # a part from an STL file
FILE_GRID = yaml.safe_dump({**_DEEPONET, "data": {**_FILE, "file": "d.h5", "inputs": "a", "outputs": "u",
                                                  "dims": 2}}).encode()  # a DeepONet on a file's grid
PLATE_DEEPONET = (Path(__file__).parent.parent / "cases" / "plate_deeponet_physics_quick.yaml").read_bytes()
ON_POINTS = yaml.safe_dump({**_DEEPONET, "data": {**_FILE, "file": "d.h5", "inputs": "a", "outputs": "u",
                                                  "grid": "nodes", "super_resolution": []}}).encode()

# (id, case file: None for the tiny plate, or the file's bytes; overrides; the line after "error: <file>: ", or
# after "error: " where it names the command line)
ROWS = [
    # values inside mappings
    ("weight-negative", None, ["loss.weights.pde=-1"], "loss.weights.pde: must be >= 0.0, got -1"),
    ("weight-nan", None, ["loss.weights.pde=.nan"], "loss.weights.pde: must be a finite number, got nan"),
    ("part-points-negative", None, ["sampling.parts.left=-5"], "sampling.parts.left: must be >= 1, got -5"),
    ("weight-unknown-term", None, ["loss.weights.nosuch=1"], "loss.weights.nosuch: unknown loss term; terms are"),
    ("weight-misspelt-term", None, ["loss.weights.pdf=2"], "loss.weights.pdf: unknown loss term (did you mean"),
    ("part-unknown", None, ["sampling.parts.nowhere=3"], "sampling.parts.nowhere: unknown boundary part"),
    ("weight-not-a-number", None, ["loss.weights.pde=true"], "loss.weights.pde: expected a number, got bool"),
    # non-finite numbers
    ("E-inf", None, ["equation.E=.inf"], "equation.E: must be a finite number, got inf"),
    ("lr-inf", None, ["training.adam.lr=.inf"], "training.adam.lr: must be a finite number, got inf"),
    ("lr-minus-inf", None, ["training.adam.lr=-.inf"], "training.adam.lr: must be a finite number, got -inf"),
    ("lr-overflow", None, ["training.adam.lr=1e400"], "training.adam.lr: must be a finite number, got 1e400"),
    ("nu-nan", None, ["equation.nu=.nan"], "equation.nu: must be a finite number, got nan"),
    ("geometry-inf", None, ["geometry.x=[0, .inf]"], "geometry.x[1]: must be a finite number, got inf"),
    # integers
    ("steps-fraction", None, ["training.adam.steps=1.5"],
     "training.adam.steps: expected an integer, got 1.5 (not a whole number)"),
    ("steps-overflow", None, ["training.adam.steps=1e400"],
     "training.adam.steps: expected an integer, got 1e400 (not a finite number)"),
    ("seed-beyond-int64", None, ["seed=1e30"], "seed: 1e30 is out of range"),
    ("steps-negative", None, ["training.adam.steps=-1"], "training.adam.steps: must be >= 0, got -1"),
    ("steps-word", None, ["training.adam.steps=many"], "training.adam.steps: expected an integer, got str 'many'"),
    ("hidden-zero", None, ["model.hidden=[8, 0]"], "model.hidden[1]: must be >= 1, got 0"),
    # names, keys, types
    ("case-climbs-out", None, ["case=../../etc"], "case: must be a plain name"),
    ("case-absolute", None, ["case=/tmp/x"], "case: must be a plain name"),
    ("case-hidden", None, ["case=.hidden"], "case: must be a plain name"),
    ("solver-list", None, ["solver=[pinn]"], "solver: unknown solver ['pinn']"),
    ("section-not-mapping", None, ["training.adam=5"], "training.adam: expected a mapping"),
    ("dtype-unknown", None, ["dtype=float16"], "dtype: must be one of ['float32', 'float64']"),
    ("grid-wrong-length", None, ["evaluation.grid=[11]"], "evaluation.grid: expected 2 sizes"),
    ("alpha-at-bound", None, ["loss.balancing.alpha=1"], "loss.balancing.alpha: must be < 1.0"),
    # the learning-rate schedule's keys before both solvers wrote it alike
    ("schedule-decay-rate", None, ["training.adam.schedule.decay_rate=0.5"],
     "training.adam.schedule.decay_rate: renamed: write training.adam.schedule.decay"),
    ("schedule-decay-steps", None, ["training.adam.schedule={type: exponential, decay_steps: 100}"],
     "training.adam.schedule.decay_steps: renamed: write training.adam.schedule.every"),
    ("schedule-warmup-steps", None, ["training.adam.schedule.warmup_steps=10"],
     "training.adam.schedule.warmup_steps: renamed: write training.adam.schedule.warmup"),
    ("schedule-gamma", GAMMA, [], "training.schedule.gamma: renamed: write training.schedule.decay"),
    ("schedule-onecycle-no-warmup", None, ["training.adam.schedule.type=onecycle"],
     "training.adam.schedule.warmup: onecycle needs a warm-up of at least 1 step"),
    # the command line's own syntax
    ("override-no-equals", None, ["training.adam.steps"], "command line: bad override 'training.adam.steps'"),
    ("override-tag", None, ["seed=!!python/object:os.system 1"],
     "command line: seed: tag !!python/object:os.system is not allowed (case files hold plain YAML values, no tags)"),
    ("override-duplicate-key", None, ["loss.weights={pde: 1, pde: 2}"],
     "command line: loss.weights: key 'pde' is given twice"),
    ("override-unclosed", None, ["model.hidden=[8, 8"],
     "command line: model.hidden: bad override value '[8, 8': line 1"),
    # the file itself
    ("duplicate-key", b"case: a\nsolver: pinn\nseed: 1\nseed: 2\n", [],
     "line 4: key 'seed' is given twice (lines 3 and 4)"),
    ("duplicate-nested-key", b"case: a\ntraining:\n  adam:\n    lr: 0.1\n    lr: 0.2\n", [],
     "line 5: key 'lr' is given twice (lines 4 and 5)"),
    ("python-tag", b"case: !!python/object/apply:os.system ['true']\n", [],
     "line 1: tag !!python/object/apply:os.system is not allowed"),
    ("custom-tag", b"case: a\nseed: !env SEED\n", [], "line 2: tag !env is not allowed"),
    ("latin-1", b"case: caf\xe9\n", [], "not UTF-8 text: byte 0xe9 on line 1; save the file as UTF-8"),
    ("binary", b"case: a\n\x00\x01\x02", [], "malformed YAML: line 2: character U+0000 is not allowed"),
    ("unclosed-bracket", b"case: x\nsolver: [pinn\n", [], "malformed YAML: line 3, column 1:"),
    ("empty", b"", [], "the file is empty"),
    ("a-list", b"- case: a\n", [], "a case file holds a mapping of sections, got list"),
    ("nested-too-deep", b"a: " + b"[" * 600 + b"]" * 600 + b"\n", [], "malformed YAML: nested too deeply"),
    ("no-solver", b"case: a\n", [], "solver: missing; one of ['fno', 'pinn']"),
    # operators: the DeepONet (model.type deeponet) and a file's point set (data.grid naming its points)
    ("deeponet-fno-key", DEEPONET, ["model.modes=[4, 4]"], "model.modes: is a key of model.type fno, not of deeponet"),
    ("fno-deeponet-key", yaml.safe_dump(TINY_DARCY).encode(), ["model.basis=8"],
     "model.basis: is a key of model.type deeponet, not of fno"),
    ("deeponet-type-unknown", DEEPONET, ["model.type=don"], "model.type: must be one of ['fno', 'recurrent', "
                                                            "'space_time', 'deeponet']"),
    ("deeponet-basis-zero", DEEPONET, ["model.basis=0"], "model.basis: must be >= 1, got 0"),
    ("deeponet-branch-zero", DEEPONET, ["model.branch=[16, 0]"], "model.branch[1]: must be >= 1, got 0"),
    ("deeponet-harmonics-negative", DEEPONET, ["model.harmonics=-1"], "model.harmonics: must be >= 0, got -1"),
    ("deeponet-sensors-one", DEEPONET, ["model.sensors=9"],
     "model.sensors: a stride of 9 leaves one sensor of the 9 points per axis (data.resolution)"),
    ("deeponet-conv-too-deep", DEEPONET, ["model.conv=[8, 8]"],
     "model.conv: convolution 2 of 5 points per axis meets a grid of (3,) points (the 9 sensors per axis of "
     "data.resolution 9 at model.sensors 1)"),
    ("deeponet-conv-zero", DEEPONET, ["model.conv=[0]"], "model.conv[0]: must be >= 1, got 0"),
    ("augment-points", ON_POINTS, ["training.augment=dihedral"],
     "training.augment: dihedral turns the samples of a 2-D tensor grid, not"),
    ("augment-tensor", PLATE_DEEPONET, ["training.augment=dihedral", "data.params={fields: [w, mx]}"],
     "training.augment: dihedral turns the grid alone, and the plate's mx (data.params.fields) are components"),
    ("augment-unknown", DEEPONET, ["training.augment=flips"], "training.augment: must be one of ['none', 'dihedral']"),
    ("deeponet-physics-file", ON_FILE, ["data.dims=2", "training.terms={data: 1, pde: 1}"],
     "training.terms: physics terms need a generator with physics (plate, darcy), not 'file'"),
    ("deeponet-energy-edges", DEEPONET, ["training.terms={data: 1, energy: 1}"],
     "training.terms.energy: the energy is bounded below only among fields that vanish on the edges: set "
     "model.vanish_on_edges"),
    ("deeponet-estimate-file", ON_FILE, ["data.dims=2", "evaluation.estimate=true"],
     "evaluation.estimate: needs a generator with physics (plate, darcy) and model.type fno or deeponet, not a "
     "file and 'deeponet'"),
    ("deeponet-decoded", DEEPONET, ["evaluation.decoded=true"], "evaluation.decoded: needs model.type fno"),
    ("deeponet-channel-mesh", DEEPONET, ["parallel.mesh=[1, 2]"],
     "parallel.mesh: model.type deeponet has no channels to split"),
    ("generator-grid-points", DEEPONET, ["data.grid=nodes"],
     "data.grid: 'nodes' names an array of a data.file; a generator's grid is its own"),
    ("generator-dims", DEEPONET, ["data.dims=2"],
     "data.dims: counts a data.file's grid axes; a generator's are its own"),
    ("deeponet-file-no-dims", ON_FILE, [], "data.dims: give the grid axes of the file's arrays (model.type deeponet"),
    ("points-dims", ON_POINTS, ["data.dims=2"], "data.dims: a point set's arrays (data.grid 'nodes') have one axis"),
    ("points-finer-grid", ON_POINTS, ["data.super_resolution=[300]"],
     "data.super_resolution: a point set (data.grid 'nodes') is one grid"),
    ("points-fno", ON_POINTS, ["model={type: fno}"],
     "data.grid: model.type fno needs a tensor grid (closed or periodic); a point set ('nodes') trains model.type "
     "deeponet"),
    ("points-edges", ON_POINTS, ["model.vanish_on_edges=true"],
     "model.vanish_on_edges: needs model.type fno or deeponet on a closed grid, not deeponet on a points grid (file)"),
    ("points-conv", ON_POINTS, ["model.conv=[8]"],
     "model.conv: a CNN branch reads the sensors on a tensor grid, not a point set ('nodes')"),
    ("points-h1", ON_POINTS, ["training.loss=h1"],
     "training.loss: h1 takes the derivatives of a periodic grid's series"),
    # inverse problems: unknowns and data
    ("unknown-not-in-equation", None, ["unknowns={Re: {initial: 1, bounds: [0.5, 2]}}"],
     "unknowns.Re: the equation (kirchhoff_plate) sets no number 'Re'"),
    ("unknown-no-bounds", None, ["unknowns={D: {initial: 1}}"], "unknowns.D.bounds: missing"),
    ("unknown-initial-outside", None, ["unknowns={D: {initial: 5, bounds: [0.5, 2]}}"],
     "unknowns.D.initial: 5 is not strictly inside the bounds [0.5, 2]"),
    ("unknown-log-nonpositive", None, ["unknowns={D: {initial: 1, bounds: [0, 2]}}"],
     "unknowns.D.bounds: scale: log needs positive bounds"),
    ("unknown-bounds-reversed", None, ["unknowns={D: {initial: 1, bounds: [2, 0.5]}}"],
     "unknowns.D.bounds: expected [low, high] with low < high"),
    # the plate's energy form with what it cannot take (solvers/pinn/problem.py, FOR_ENERGY)
    ("energy-adaptive", None, ["equation.form=energy", "sampling.resample_every=1", "sampling.adaptive={every: 10}"],
     "sampling.adaptive: places points by the squared residuals, which the energy density ['energy'] cannot take"),
    ("energy-unknowns", None, ["equation.form=energy", "sampling.resample_every=1",
                               "unknowns={D: {initial: 1, bounds: [0.5, 2]}}"],
     "unknowns: an energy's minimum poses a forward problem, not an inverse one, which the energy density"),
    ("energy-fixed-points", None, ["equation.form=energy"],
     "sampling.resample_every: is 0: over points drawn once the network lowers the energy's mean between them"),
    ("energy-form-word", None, ["equation.form=weak"], "equation.form: must be one of ['strong', 'energy'], got 'weak'"),
    ("data-field-unknown", None, ["data={path: d.csv, fields: [pressure]}"],
     "data.fields[0]: 'pressure' is not a field of the equation"),
    ("data-grid-counts", None, ["data={path: d.csv, fields: [w], sensors: {layout: grid, points: [5]}}"],
     "data.sensors.points: a grid needs 2 counts"),
    ("box-wrong-dimension", None, ["sampling.boxes={wake: {points: 10, lower: [0], upper: [1, 1]}}"],
     "sampling.boxes.wake.lower: expected 2 coordinates ['x', 'y'], got [0.0]"),
    ("box-reversed", None, ["sampling.boxes={wake: {points: 10, lower: [0.5, 0], upper: [0.2, 1]}}"],
     "sampling.boxes.wake: needs lower < upper in every coordinate, got [0.5, 0.0] and [0.2, 1.0]"),
    ("box-outside", None, ["sampling.boxes={wake: {points: 10, lower: [3, 0], upper: [4, 1]}}"],
     "sampling.boxes.wake: the box [3.0, 0.0] to [4.0, 1.0] holds no point of the domain"),
    ("avoid-wrong-dimension", None, ["sampling.avoid={points: [[0, 1, 2]], radius: 0.1}"],
     "sampling.avoid.points[0]: expected 2 coordinates ['x', 'y'], got [0.0, 1.0, 2.0]"),
    # a patch load (the tiny plate's load replaced), its numbers as unknowns
    ("patch-and-load", None, ["equation.q0=1", f"equation.patch={PATCH}"],
     "equation.patch: give the load or a patch, not both"),
    ("patch-no-q0", None, ["equation.load=null", f"equation.patch={PATCH}"],
     "equation.q0: a patch load needs q0, its pressure in Pa"),
    ("patch-outside-plate", None, [ON_PATCH, "equation.patch.x=1.9"],
     "equation.patch.x: the patch spans x = [1.7, 2.1] (centre 1.9, side 0.4), outside the plate's [0, 2]"),
    ("patch-smoothing-too-wide", None, [ON_PATCH, "equation.patch.smoothing=0.2"],
     "equation.patch.smoothing: 0.2 m: the smoothed patch keeps the patch's second moments only below its shorter "
     "side / sqrt(12) = 0.1155 m"),
    ("patch-unknown-misspelt", None, [ON_PATCH, "unknowns={patch.xc: {initial: 1, bounds: [0.5, 1.5]}}"],
     "unknowns.patch.xc: the equation (kirchhoff_plate) sets no number 'patch.xc' (did you mean 'patch.x'?)"),
    ("patch-unknown-without-patch", None, ["unknowns={patch.x: {initial: 1, bounds: [0.5, 1.5]}}"],
     "unknowns.patch.x: the equation (kirchhoff_plate) sets no number 'patch.x'"),
    ("patch-bounds-leave-plate", None, [ON_PATCH, "unknowns={q0: {initial: 1, bounds: [0.5, 2]}, "
                                                  "patch.x: {initial: 1, bounds: [0.1, 1.9], scale: linear}}"],
     "unknowns.patch.x.bounds: the equation is refused at q0 = 0.5, patch.x = 0.1, which the bounds allow: patch.x: "
     "the patch spans x = [-0.1, 0.3] (centre 0.1, side 0.4), outside the plate's [0, 2]"),
    ("unknown-bounds-break-section", None, ["unknowns={nu: {initial: 0.3, bounds: [0.1, 0.6], scale: linear}}"],
     "unknowns.nu.bounds: the equation is refused at nu = 0.6, which the bounds allow: nu: must be < 0.5, got 0.6"),
    # a damaged plate, its rigidity as a field unknown
    ("damage-outside-plate", None, [f"equation.damage={DAMAGE}", "equation.damage.x=2.5"],
     "equation.damage.x: the zone's centre 2.5 is outside the plate's [0, 2]"),
    ("damage-drop-whole", None, [f"equation.damage={DAMAGE}", "equation.damage.drop=1"],
     "equation.damage.drop: must be < 1.0, got 1"),
    ("damage-stretched", None, [f"equation.damage={DAMAGE}", "equation.aspect=2"],
     "equation.damage: a damaged plate is not stretched: leave aspect at 1"),
    ("field-unknown-not-varying", None, ["equation.q0=1", "unknowns={q0: {initial: 1, bounds: [0.5, 2], "
                                                          "field: {hidden: [4]}}}"],
     "unknowns.q0.field: q0 cannot vary in space in the equation (kirchhoff_plate); the numbers that can are "
     "['D']: make q0 a scalar (no field)"),
    # parametric families
    ("parameter-no-range", None, ["parameters={aspect: {values: [1, 2]}}"], "parameters.aspect.range: missing"),
    ("parameter-is-a-coordinate", None, ["parameters={x: {range: [0, 1]}}"],
     "parameters.x: 'x' is a coordinate of the domain ['x', 'y']; a parameter names a number of the equation"),
    ("parameter-not-in-equation", None, ["parameters={Re: {range: [1, 2]}}"],
     "parameters.Re: the equation (kirchhoff_plate) sets no number 'Re'"),
    ("parameter-range-reversed", None, ["parameters={aspect: {range: [3, 1]}}"],
     "parameters.aspect.range: expected [low, high] with low < high, got [3, 1]"),
    ("parameter-value-outside", None, ["parameters={aspect: {range: [1, 3], values: [1, 4]}}"],
     "parameters.aspect.values: 4 is outside the range [1, 3]"),
    ("parameter-log-nonpositive", None, ["parameters={nu: {range: [0, 0.4], scale: log}}"],
     "parameters.nu.range: scale: log needs a positive range"),
    ("parameter-and-unknown", None, ["parameters={D: {range: [1, 3]}}", "unknowns={D: {initial: 1, bounds: [0.5, 2]}}"],
     "parameters.D: 'D' is also an unknown"),
    # ensembles
    ("ensemble-of-one", None, ["ensemble={members: 1}"], "ensemble.members: must be >= 2, got 1"),
    ("ensemble-start-unknown", None, ["ensemble={start: fresh}"], "ensemble.start: must be one of ['seeds', 'trained']"),
    ("ensemble-trained-without-data", None, ["ensemble={start: trained}"],
     "ensemble.start: members started from the trained network differ only by their resample of the observations"),
    ("ensemble-seeds-with-dense-bfgs", None, ["ensemble={members: 2}", "training.lbfgs.method=bfgs"],
     "ensemble: an ensemble does not combine with training.lbfgs.method: bfgs from seeds"),
    ("lbfgs-method-unknown", None, ["training.lbfgs.method=newton"],
     "training.lbfgs.method: must be one of ['lbfgs', 'bfgs']"),
    ("lbfgs-keep-curvature-limited", None, ["training.lbfgs.resample_every=10", "training.lbfgs.keep_curvature=true"],
     "training.lbfgs.keep_curvature: keeps the dense estimate over new points: it needs method bfgs and "
     "resample_every > 0"),
    ("ensemble-with-refinement", None, ["ensemble={members: 2}", "sampling.adaptive={every: 10}"],
     "ensemble: an ensemble does not combine with sampling.adaptive"),
    ("ensemble-with-field-unknown", None, ["ensemble={members: 2}",
                                           "unknowns={D: {initial: 1, bounds: [0.5, 2], field: {hidden: [4]}}}"],
     "ensemble: an ensemble does not combine with a field unknown (unknowns.<name>.field)"),
    # geometry: a mesh's parts and the conditions on them
    ("mesh-selector-selects-nothing", HEAT, ['geometry.select.hot={where: "y > 5"}'],
     "geometry.select.hot: selects no face (the faces before it in select took any it would)"),
    ("heat-part-without-condition", HEAT, ["equation.conditions={hot: {u: 1}, cold: {u: 0}}"],
     "equation.conditions: no condition for part(s) ['surface'] (insulated: {flux: 0})"),
    ("heat-condition-unknown-quantity", HEAT, ["equation.conditions.surface={T: 0}"],
     "equation.conditions.surface: give one of {u: temperature} or {flux: heat flux in}"),
]


def _case(tmp_path, content) -> str:
    if content is None:
        return write_case(tmp_path)
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    return str(path)


def one_error_line(capsys, argv) -> str:
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err
    return err[len("error: "):-1]


def test_the_table_is_long_and_its_rows_distinct():
    assert len(ROWS) >= 30 and len({r[0] for r in ROWS}) == len(ROWS)


@pytest.mark.parametrize("content,overrides,expected", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_show_refuses_in_one_line(tmp_path, capsys, content, overrides, expected):
    path = _case(tmp_path, content)
    line = one_error_line(capsys, ["show", path, *overrides])
    assert line.startswith(expected if expected.startswith("command line: ") else f"{path}: {expected}"), line


@pytest.mark.parametrize("overrides", [["loss.weights.nosuch=1"], ["case=../../etc"], ["sampling.parts.left=-5"]])
def test_run_refuses_before_making_a_folder(tmp_path, capsys, overrides):
    """What show refuses, run refuses with the same line, before a run folder exists (nothing computed)."""
    path = write_case(tmp_path)
    shown = one_error_line(capsys, ["show", path, *overrides])
    out = tmp_path / "run"
    assert one_error_line(capsys, ["run", path, "--out", str(out), "--quiet", *overrides]) == shown
    assert not out.exists()


def test_a_missing_file_and_a_folder(tmp_path, capsys):
    assert one_error_line(capsys, ["show", str(tmp_path / "nope.yaml")]).startswith(
        f"{tmp_path}/nope.yaml: no such case file")
    assert one_error_line(capsys, ["show", str(tmp_path)]) == f"{tmp_path}: not a file"


def test_inverse_data_files_in_one_line(tmp_path, capsys):
    """A missing data file names the command that makes it; a file without the observed columns names them."""
    path = write_case(tmp_path, unknowns={"D": {"initial": 1.0, "bounds": [0.5, 2.0]}},
                      data__path=str(tmp_path / "obs.csv"), data__fields=["w"])
    out = str(tmp_path / "run")
    line = one_error_line(capsys, ["run", path, "--out", out, "--quiet"])
    assert line == f"{path}: data.path: data file {tmp_path}/obs.csv does not exist; make it with " \
                   f"`sciml datagen {path}`", line
    (tmp_path / "obs.csv").write_text("x,y,u\n1,1,0.5\n")
    line = one_error_line(capsys, ["run", path, "--out", out, "--force", "--quiet"])
    assert line == f"{tmp_path}/obs.csv: no column(s) ['w']; the data file needs columns ['x', 'y', 'w']", line


def test_sobol_points_beyond_their_dimensions(capsys):
    """Sobol' direction numbers stop at 21 201 dimensions: a ball case asking for them beyond says so."""
    line = one_error_line(capsys, ["show", "cases/poisson_hd.yaml", "geometry.dim=30000", "sampling.method=sobol"])
    assert line.startswith("cases/poisson_hd.yaml: sampling.method: Sobol' points exist up to 21201 dimensions, "
                           "this case has 30000"), line


@pytest.mark.parametrize("overrides,expected", [
    (["equation.formulation=velocity_pressure"],
     "equation.lid_corners: the corner flows are of a steady 2D cavity in stream_function form"),
    (["conditions.enforce={walls: exact}", "conditions.length=0.1"],
     "conditions.enforce: exact conditions hold for the network's output, not with the equation's particular part"),
])
def test_lid_corners_where_they_do_not_apply(capsys, overrides, expected):
    """The cavity's corner flows (equation.lid_corners) need its stream function and penalty conditions."""
    line = one_error_line(capsys, ["show", "cases/ldc.yaml", "equation.lid_corners=true", *overrides])
    assert line.startswith(f"cases/ldc.yaml: {expected}"), line


@pytest.mark.parametrize("overrides,expected", [
    (["equation.conditions.inlet.u=start"], "equation.conditions.inlet.u: 'start' gives the initial values of"),
    (["equation.start=null"], "equation.conditions.initial.u: 'start' needs equation.start"),
    (["equation.conditions.inlet.v=0.1"], "equation.start: the start's channel needs the inlet's u as an expression"),
    (["conditions.fit={method: least_squares}"], "conditions.fit: fits the spline of exact initial values (or a "
                                                 "base): needs conditions.spacing and enforce.initial exact or base"),
    (["conditions.fit.refine=2"], "conditions.fit.refine: an interpolating spline takes its nodes' values"),
    (["conditions.fit={method: least_squares, smoothing: 0}"], "conditions.fit.smoothing: must be > 0.0, got 0"),
    (["conditions.fit.method=smooth"], "conditions.fit.method: "),
    (["equation.start.cells_per_diameter=4"], "equation.start.cells_per_diameter: must be >= 8, got 4"),
    (["equation.start.cells_per_diameter=25"], "equation.start.cells_per_diameter: 25 cells across the cylinder do "
                                                "not cut the channel 2.2 x 0.41 into whole cells; [10, 20, 30] do"),
])
def test_a_start_flow_where_it_does_not_apply(capsys, overrides, expected):
    """``equation.start`` (the developed flow dfg_2d2 begins from) and its ``start`` values, checked at load."""
    line = one_error_line(capsys, ["show", "cases/dfg_2d2.yaml", *overrides])
    assert line.startswith(f"cases/dfg_2d2.yaml: {expected}"), line


def test_an_ensemble_with_causal_weights(capsys):
    """The quasi-Newton phase holds one network's causal weights over a chunk; an ensemble's are refused."""
    line = one_error_line(capsys, ["show", "cases/taylor_green.yaml", "ensemble={members: 2}",
                                   "loss.causal={chunks: 4}"])
    assert line.startswith("cases/taylor_green.yaml: ensemble: an ensemble does not combine with loss.causal"), line


# ``sciml predict`` with error estimates (issue 72), on a run folder holding only its config.yaml (the case
# file's bytes; None: the tiny plate PINN) or on an export: (id, run folder's case, flags, the line after
# "error: ", RUN standing for the run folder)
PREDICT_ROWS = [
    ("tol-without-refine", None, ["--tol", "0.01"], "--tol is where the refinement stops: give --refine STEPS too"),
    ("lr-without-refine", None, ["--lr", "0.01"], "--lr is the refinement's learning rate: give --refine STEPS too"),
    ("method-without-refine", None, ["--method", "field"],
     "--method is how the refinement works: give --refine STEPS too"),
    ("estimate-of-an-export", "export", ["--estimate"],
     "RUN: --estimate and --refine need the run folder (its physics and weights), not an export"),
    ("refine-of-an-export", "export", ["--refine", "5"],
     "RUN: --estimate and --refine need the run folder (its physics and weights), not an export"),
    ("estimate-of-a-pinn", None, ["--estimate"], "RUN: solver 'pinn' has no error estimate: --estimate and --refine "
                                                 "are for operators with physics (data.generator plate, darcy)"),
    ("estimate-of-a-file", FILE_GRID, ["--estimate"],
     "RUN: no error estimate: it needs an operator with physics (data.generator plate or darcy, model.type fno or "
     "deeponet); this one has data.generator file, model.type deeponet"),
    ("refine-of-a-file", FILE_GRID, ["--refine", "5"], "RUN: no error estimate: it needs an operator with physics"),
]


@pytest.mark.parametrize("content,flags,expected", [r[1:] for r in PREDICT_ROWS], ids=[r[0] for r in PREDICT_ROWS])
def test_predict_with_estimates_refuses_in_one_line(tmp_path, capsys, content, flags, expected):
    import h5py
    import numpy as np

    with h5py.File(tmp_path / "in.h5", "w") as f:
        f["inputs"] = np.zeros((1, 9, 9, 1))
    if content == "export":
        folder = str(tmp_path / "model.jaxexport")
    else:
        folder = str(tmp_path / "run")
        (tmp_path / "run").mkdir()
        (tmp_path / "run" / "config.yaml").write_bytes(Path(_case(tmp_path, content)).read_bytes())
    line = one_error_line(capsys, ["predict", folder, str(tmp_path / "in.h5"), *flags])
    assert line.startswith(expected.replace("RUN", folder)), line
