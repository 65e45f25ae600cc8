"""The typed schema: every kind of mistake names its dotted key."""
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import pytest

from sciml.config import build, spec, to_dict
from sciml.errors import Invalid


@dataclass
class Inner:
    steps: int = spec(10, ge=0)
    lr: float = spec(1e-3, gt=0)


@dataclass
class A:
    type: Literal["a"]
    size: int = 1


@dataclass
class B:
    type: Literal["b"]
    name: str = "x"


@dataclass
class Outer:
    name: str = spec(help="the name")
    inner: Inner = field(default_factory=Inner)
    kind: Literal["one", "two"] = "one"
    sizes: list[int] = spec(factory=lambda: [1], ge=1)
    pair: tuple[float, float] = (0.0, 1.0)
    choice: A | B = field(default_factory=lambda: A("a"))
    opt: float | None = None


def err(raw):
    with pytest.raises(Invalid) as e:
        build(Outer, raw)
    return e.value


def test_valid_round_trip():
    cfg = build(Outer, {"name": "n", "inner": {"steps": 5, "lr": "1e-2"}, "choice": {"type": "b", "name": "q"}})
    assert cfg.inner.steps == 5 and cfg.inner.lr == 0.01 and isinstance(cfg.choice, B)
    assert build(Outer, to_dict(cfg)) == cfg


def test_unknown_key_suggests():
    e = err({"name": "n", "inner": {"stpes": 3}})
    assert e.key == "inner.stpes" and "did you mean 'steps'" in e.message


@dataclass
class Renamed:
    renamed: ClassVar[dict[str, str]] = {"n_steps": "steps"}
    steps: int = 1


@dataclass
class Holder:
    inner: Renamed = field(default_factory=Renamed)


def test_a_renamed_key_names_the_new_one_with_its_path():
    with pytest.raises(Invalid) as e:
        build(Holder, {"inner": {"n_steps": 3}})
    assert (e.value.key, e.value.message) == ("inner.n_steps", "renamed: write inner.steps")
    with pytest.raises(Invalid) as e:
        build(Holder, {"inner": {"step": 3}})
    assert e.value.message == "unknown key (did you mean 'steps'?)"


def test_missing_required():
    e = err({})
    assert e.key == "name" and "missing" in e.message


@pytest.mark.parametrize("raw,key,word", [
    ({"name": "n", "inner": {"steps": "ten"}}, "inner.steps", "integer"),
    ({"name": "n", "inner": {"steps": 2.5}}, "inner.steps", "integer"),
    ({"name": 3}, "name", "string"),
    ({"name": "n", "pair": [1.0]}, "pair", "2 items"),
    ({"name": "n", "inner": 5}, "inner", "mapping"),
])
def test_wrong_type(raw, key, word):
    e = err(raw)
    assert e.key == key and word in e.message


@pytest.mark.parametrize("raw,key", [
    ({"name": "n", "inner": {"steps": -1}}, "inner.steps"),
    ({"name": "n", "inner": {"lr": 0}}, "inner.lr"),
    ({"name": "n", "sizes": [3, 0]}, "sizes[1]"),
])
def test_out_of_range(raw, key):
    assert err(raw).key == key


def test_literal_and_tagged_union():
    e = err({"name": "n", "kind": "tow"})
    assert e.key == "kind" and "did you mean 'two'" in e.message
    e = err({"name": "n", "choice": {"type": "c"}})
    assert e.key == "choice.type"
    e = err({"name": "n", "choice": {"type": "a", "name": "z"}})
    assert e.key == "choice.name"


def test_a_union_names_every_kind_it_takes_or_the_member_s_own_error():
    @dataclass
    class Either:
        size: int | dict[Literal["cpu", "gpu"], int] | None = spec(None, ge=1)

    assert build(Either, {"size": 2}).size == 2 and build(Either, {"size": {"cpu": 3}}).size == {"cpu": 3}
    for raw, key, message in [
            ("foo", "size", "expected an integer or a mapping, got str 'foo'"),
            ([1], "size", "expected an integer or a mapping, got list [1]"),
            ({"xpu": 1}, "size", "must be one of ['cpu', 'gpu'], got 'xpu'"),  # a mapping, wrong inside: its error
            ({"cpu": 0}, "size.cpu", "must be >= 1, got 0")]:
        with pytest.raises(Invalid) as e:
            build(Either, {"size": raw})
        assert (e.value.key, e.value.message.split(" (did you")[0]) == (key, message)


def test_registry_accepts_members_added_later():
    from typing import Annotated

    from sciml.config.schema import Registry

    table = {"a": (A, None)}

    @dataclass
    class Holder:
        thing: Annotated[object, Registry(table)]

    with pytest.raises(Invalid) as e:
        build(Holder, {"thing": {"type": "b"}})
    assert e.value.key == "thing.type"
    table["b"] = (B, None)
    assert isinstance(build(Holder, {"thing": {"type": "b", "name": "z"}}).thing, B)


@dataclass
class Numbers:
    steps: int = 1
    lr: float = 1.0
    weights: dict[str, float] = spec(factory=dict, ge=0.0)
    counts: dict[str, list[int]] = spec(factory=dict, ge=1)
    extra: dict[str, Any] = field(default_factory=dict)


@pytest.mark.parametrize("raw,value", [
    ({"steps": "1e12"}, 10 ** 12), ({"steps": "1e3"}, 1000), ({"steps": 2.0}, 2), ({"steps": "+3E2"}, 300),
    ({"lr": "1e-3"}, 1e-3), ({"lr": 5}, 5.0), ({"lr": "-.5"}, -0.5),
])
def test_numbers_written_with_an_exponent(raw, value):
    got = getattr(build(Numbers, raw), next(iter(raw)))
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("raw,key,message", [
    ({"steps": 1.5}, "steps", "expected an integer, got 1.5 (not a whole number)"),
    ({"steps": "2.5e0"}, "steps", "expected an integer, got 2.5e0 (not a whole number)"),
    ({"steps": "1e400"}, "steps", "expected an integer, got 1e400 (not a finite number)"),
    ({"steps": 2 ** 63}, "steps", f"{2 ** 63} is out of range (|n| < 2**63)"),
    ({"steps": "nan"}, "steps", "expected an integer, got str 'nan'"),
    ({"lr": float("inf")}, "lr", "must be a finite number, got inf"),
    ({"lr": float("nan")}, "lr", "must be a finite number, got nan"),
    ({"lr": "1e400"}, "lr", "must be a finite number, got 1e400"),
    ({"lr": 10 ** 400}, "lr", f"must be a finite number, got {10 ** 400}"),
    ({"lr": "inf"}, "lr", "expected a number, got str 'inf'"),
    ({"weights": {"a": 1.0, "b": -1}}, "weights.b", "must be >= 0.0, got -1.0"),
    ({"weights": {"a": float("nan")}}, "weights.a", "must be a finite number, got nan"),
    ({"counts": {"a": [1, 0]}}, "counts.a[1]", "must be >= 1, got 0"),
    ({"extra": {"deep": [1.0, {"x": float("-inf")}]}}, "extra.deep[1].x", "must be a finite number, got -inf"),
])
def test_numbers_refused(raw, key, message):
    with pytest.raises(Invalid) as e:
        build(Numbers, raw)
    assert (e.value.key, e.value.message) == (key, message)
