"""``sciml bench fno-step``: every variant is the same step (first losses agree) and the table has a row each."""
import jax
import jax.numpy as jnp
import pytest
from cli_cases import TINY_DARCY, write_case

from sciml.bench import fno_step


def test_variants_are_timed_side_by_side(tmp_path, capsys):
    path = write_case(tmp_path, TINY_DARCY)
    code = fno_step.main(["--case", str(path), "--steps", "1", "--rounds", "1", "--set", "training.batch_size=4",
                          "--variant", "fft=model.spectral=fft",
                          "--variant", "dft-micro2=model.spectral=dft,training.micro_batch=2"])
    out = capsys.readouterr().out
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[0] in ("fft", "dft-micro2")}
    assert set(rows) == {"fft", "dft-micro2"} and rows["fft"][2] == "1.00x"
    assert abs(float(rows["dft-micro2"][-4])) < 1e-5  # the first losses agree: the same step
    per_epoch = int(out.split(" steps per epoch")[0].split()[-1])
    for r in rows.values():  # the rate is the row's work over its time per step
        assert float(r[-2]) == pytest.approx(float(r[-3]) / (float(r[1]) / per_epoch), rel=0.02)
    assert "4x the baseline" in out.splitlines()[-1]


def test_a_pino_step_takes_its_physics_batch_and_its_labelled_batch(tmp_path):
    """A PINO case (``data.n_labelled``, the physics on a finer grid, unsolved inputs): the step is timed on a
    minibatch on the physics grid and a labelled batch on the training grid, an epoch is every physics input."""
    case = {**TINY_DARCY, "data": {**TINY_DARCY["data"], "n_labelled": 3, "physics_resolution": 17, "n_physics": 8},
            "model": {**TINY_DARCY["model"], "vanish_on_edges": True},
            "training": {**TINY_DARCY["training"], "batch_size": 4, "terms": {"data": 1.0, "preconditioned": 1.0}}}
    step, state, arrays, per_epoch = fno_step.build(str(write_case(tmp_path, case)), [])
    assert [a.shape for a in arrays] == [(4, 17, 17, 1)] * 2 + [(3, 9, 9, 1)] * 2
    assert per_epoch == (TINY_DARCY["data"]["n_train"] + 8) // 4
    _, loss = step(state, *arrays)
    assert jnp.isfinite(loss)


def test_work_counts_products_transforms_and_loops():
    a, b = jnp.ones((3, 4, 5)), jnp.ones((3, 5, 6))
    count = lambda f, *args: fno_step.jaxpr_work(jax.make_jaxpr(f)(*args).jaxpr)
    assert count(lambda a, b: jnp.einsum("bij,bjk->bik", a, b), a, b) == 2 * 3 * 4 * 6 * 5
    assert count(lambda a, b: a.astype(jnp.complex64) @ b.astype(jnp.complex64), a, b) == 4 * 2 * 3 * 4 * 6 * 5
    assert count(lambda x: jnp.fft.fft(x.astype(jnp.complex64)), jnp.ones((7, 16))) == 5 * 7 * 16 * 4
    square = lambda c, _: (c @ c, None)
    m = jnp.ones((8, 8))
    assert count(lambda m: jax.lax.scan(square, m, None, length=5)[0], m) == 5 * 2 * 8**3
    assert count(jax.grad(lambda m: jax.lax.scan(square, m, None, length=5)[0].sum()), m) == 3 * 5 * 2 * 8**3
    assert count(jax.jit(lambda a: jnp.sin(a) + 1), a) == 0  # elementwise work is left out


def test_a_variant_reads_name_and_overrides():
    assert fno_step._variant("a=model.spectral=dft,training.micro_batch=2") == (
        "a", ["model.spectral=dft", "training.micro_batch=2"])
    assert fno_step._variant("base=") == ("base", [])


def test_the_before_variant_traces_the_products_as_filed_and_restores_them():
    """The baseline ``before`` runs the pointwise (real) products over the field's leading axes (4-D operands), as when
    issue 15 was filed; every other variant, and everything after it, today's flattened 2-D products."""
    from sciml.nn import fno
    from sciml.solvers.fno import run

    params = fno.init(jax.random.PRNGKey(0), 1, 1, (3, 3), 4, 2, projection=(8,))
    x = jnp.ones((2, 8, 8, 1))
    ranks = lambda: {e.invars[0].aval.ndim for e in jax.make_jaxpr(lambda p: fno.apply(p, x, spectral="fft"))(
        params).jaxpr.eqns if e.primitive.name == "dot_general" and not jnp.iscomplexobj(e.invars[0].aval)}
    affine, cache = fno._affine, dict(run._CACHE)
    with fno_step._traced_as("fft"):
        assert ranks() == {2}
    with fno_step._traced_as(fno_step.BEFORE):
        assert ranks() == {4} and not run._CACHE
    assert fno._affine is affine and cache == run._CACHE and ranks() == {2}


def test_the_series_variant_is_the_same_plate_step_on_the_points(tmp_path, capsys):
    """A plate case's terms on the grid's local polynomials (today) and on the series at the points (``series``):
    the same first loss to rounding (float64), and the series variant restores the terms' grid path after it."""
    from sciml.solvers.fno import physics

    case = {"case": "tiny_plate_operator", "solver": "fno", "seed": 0, "dtype": "float64",
            "data": {"generator": "plate", "path": "PLACEHOLDER", "resolution": 9, "n_train": 8, "n_test": 4},
            "model": {"modes": [3, 3], "width": 6, "layers": 2, "padding": 2, "projection": [8],
                      "vanish_on_edges": True},
            "training": {"epochs": 1, "batch_size": 4, "terms": {"data": 0.0, "pde": 1.0, "boundary": 1.0,
                                                                 "energy": 1.0}}}
    on_grid = physics._on_grid
    code = fno_step.main(["--case", write_case(tmp_path, case), "--steps", "1", "--rounds", "1",
                          "--variant", "grid=", "--variant", "series="])
    out = capsys.readouterr().out
    assert code == 0 and physics._on_grid is on_grid
    row = next(line.split() for line in out.splitlines() if line.split() and line.split()[0] == "series")
    assert abs(float(row[-4])) < 1e-9


def test_each_round_starts_with_untimed_warm_up_steps(monkeypatch):
    """An epoch's steps run back to back: a round first runs ``warmup`` steps that are not timed, so that the
    variant timed before it does not charge its caches to this one."""
    calls = []

    def build(case, overrides):
        def step(state, x):  # a new function for each variant, as the real build's
            calls.append(1)
            return state, jnp.zeros(())
        return step, None, [jnp.ones(2)], 10

    monkeypatch.setattr(fno_step, "build", build)
    counts = []
    for warmup in (0, 1):
        calls.clear()
        rows = fno_step.measure({"a": [], "b": []}, "any", [], steps=2, rounds=3, warmup=warmup)
        counts.append(len(calls))
        assert [len(r["wall"]) for r in rows] == [3, 3]  # a time per round
    assert counts[1] - counts[0] == 2 * 3  # one more step per round of each variant
