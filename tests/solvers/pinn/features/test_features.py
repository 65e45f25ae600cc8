"""The table of the PINN's features that do not combine (``solvers/pinn/features/__init__.py``): each pair it lists is
refused, naming its key, and each feature alone is not."""
from types import SimpleNamespace

import pytest

from sciml.errors import Invalid
from sciml.solvers.pinn import features


def plain():
    """The parts of a case the table reads, as a case without any optional feature has them."""
    return SimpleNamespace(ensemble=None, parameters={}, unknowns={}, data=None, sampling=SimpleNamespace(adaptive=None),
                           training=SimpleNamespace(windows=1, curriculum=None, lbfgs=SimpleNamespace(method="lbfgs")),
                           loss=SimpleNamespace(causal=None), autodiff=SimpleNamespace(mode="taylor"))


def turn_on(c, feature: str) -> None:
    t = c.training
    {"ensemble": lambda: setattr(c, "ensemble", SimpleNamespace(start="trained")),
     "parameters": lambda: setattr(c, "parameters", {"nu": object()}),
     "unknowns": lambda: setattr(c, "unknowns", {"D": SimpleNamespace(field=None)}),
     features.FIELD_UNKNOWN: lambda: setattr(c, "unknowns", {"D": SimpleNamespace(field=object())}),
     "data": lambda: setattr(c, "data", object()),
     "training.windows": lambda: setattr(t, "windows", 4),
     "training.curriculum": lambda: setattr(t, "curriculum", object()),
     "sampling.adaptive": lambda: setattr(c.sampling, "adaptive", object()),
     "loss.causal": lambda: setattr(c.loss, "causal", object()),
     "autodiff.mode": lambda: setattr(c.autodiff, "mode", "stochastic"),
     features.DENSE_SEEDS: lambda: (setattr(c, "ensemble", SimpleNamespace(start="seeds")),
                                    setattr(t.lbfgs, "method", "bfgs"))}[feature]()


def test_the_table_names_only_known_features():
    assert {f for row in features.APART for f in row[:2]} <= set(features.USED)


@pytest.mark.parametrize("feature", sorted(features.USED))
def test_a_feature_alone_is_not_refused(feature):
    c = plain()
    assert not any(used(c) for used in features.USED.values())
    turn_on(c, feature)
    assert features.USED[feature](c)
    if feature != features.DENSE_SEEDS:  # which is an ensemble's: refused with it
        features.apart(c)


@pytest.mark.parametrize("row", features.APART, ids=lambda r: f"{r[0]}+{r[1]}")
def test_each_pair_of_the_table_is_refused_naming_its_key(row):
    feature, other, key, why = row
    c = plain()
    turn_on(c, feature)
    turn_on(c, other)
    with pytest.raises(Invalid) as e:
        features.apart(c)
    assert (e.value.key, e.value.message) == (key, why.format(other=other))


def test_every_feature_check_runs_from_the_table():
    from sciml.solvers.pinn.features import curriculum, ensemble, observations, parameters, unknowns
    assert set(features.CHECKS) == {features.apart, parameters.check, curriculum.check, ensemble.check,
                                    unknowns.check, observations.check}
    assert features.CHECKS[0] is parameters.check  # a number both a parameter and an unknown says so first


def test_the_reports_are_of_known_features():
    from sciml.solvers.pinn.output import report
    assert set(report.REPORTS) <= set(features.USED)
    assert all(issubclass(r, report.Report) for r in report.REPORTS.values())
