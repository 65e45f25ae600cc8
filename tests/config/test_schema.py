"""The typed schema: every kind of mistake names its dotted key."""
from dataclasses import dataclass, field
from typing import Literal

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
