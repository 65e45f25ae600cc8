"""Reading case files: plain YAML as ``yaml.safe_load`` reads it, with duplicate keys, tags and bytes that are not
UTF-8 refused in one line naming the file and the line."""
import pytest

from sciml.config import apply_overrides, parse_override, read_yaml
from sciml.errors import ConfigError


def read(tmp_path, content: bytes):
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    return read_yaml(str(path))


def refused(tmp_path, content: bytes) -> str:
    with pytest.raises(ConfigError) as e:
        read(tmp_path, content)
    assert e.value.source == str(tmp_path / "c.yaml") and "\n" not in str(e.value)
    return e.value.message


def test_plain_yaml_reads_as_safe_load_does(tmp_path):
    text = b"a: 1\nb: {c: [1, 2.5, x], d: null}\nanchor: &base {p: 1, q: 2}\nmerged:\n  <<: *base\n  q: 3\n"
    import yaml

    assert read(tmp_path, text) == yaml.safe_load(text)
    assert read(tmp_path, text)["merged"] == {"p": 1, "q": 3}  # a merge key may be overridden: not a duplicate


@pytest.mark.parametrize("content,message", [
    (b"a: 1\nb: 2\na: 3\n", "line 3: key 'a' is given twice (lines 1 and 3)"),
    (b"a:\n  b: 1\n  c: 2\n  b: 3\n", "line 4: key 'b' is given twice (lines 2 and 4)"),
    (b"a: [{x: 1, x: 2}]\n", "line 1: key 'x' is given twice (lines 1 and 1)"),
])
def test_duplicate_keys_name_the_key_and_both_lines(tmp_path, content, message):
    assert refused(tmp_path, content) == message


@pytest.mark.parametrize("content,tag", [
    (b"a: !!python/object:collections.OrderedDict {}\n", "!!python/object:collections.OrderedDict"),
    (b"a: !!python/name:os.system\n", "!!python/name:os.system"),
    (b"a: !custom 3\n", "!custom"),
])
def test_tags_are_named_as_not_allowed(tmp_path, content, tag):
    message = refused(tmp_path, content)
    assert message == f"line 1: tag {tag} is not allowed (case files hold plain YAML values, no tags)"
    assert "malformed" not in message


def test_text_that_is_not_utf8(tmp_path):
    assert refused(tmp_path, "a: 1\nb: Größe\n".encode("latin-1")) == \
        "not UTF-8 text: byte 0xf6 on line 2; save the file as UTF-8"


def test_a_utf8_file_with_a_byte_order_mark_reads(tmp_path):
    assert read(tmp_path, "\ufeffa: Größe\n".encode("utf-8")) == {"a": "Größe"}


def test_override_values_are_read_by_the_same_rules():
    assert parse_override("a.b={x: 1, y: [1, 2]}") == (["a", "b"], {"x": 1, "y": [1, 2]})
    with pytest.raises(ConfigError) as e:
        parse_override("a={x: 1, x: 2}")
    assert (e.value.source, e.value.key, e.value.message) == ("command line", "a", "key 'x' is given twice")
    with pytest.raises(ConfigError) as e:
        apply_overrides({}, ["a=!!python/tuple [1]"])
    assert e.value.message == "tag !!python/tuple is not allowed (case files hold plain YAML values, no tags)"


def test_an_override_matches_a_dotted_key_of_the_file_whole():
    """``unknowns.patch.x.initial=1.1`` reaches the unknown named ``patch.x``; without such a key the parts nest as
    before, and a key that is not a mapping is still refused."""
    data = {"unknowns": {"patch.x": {"initial": 1.0, "bounds": [0.5, 1.5]}}, "loss": {"weights": {"left.w": 2}}}
    out = apply_overrides(data, ["unknowns.patch.x.initial=1.1", "loss.weights.left.w=3", "a.b.c=4",
                                 "unknowns.patch.y={initial: 2}"])
    assert out["unknowns"] == {"patch.x": {"initial": 1.1, "bounds": [0.5, 1.5]}, "patch": {"y": {"initial": 2}}}
    assert out["loss"]["weights"] == {"left.w": 3} and out["a"] == {"b": {"c": 4}}
    assert data["unknowns"]["patch.x"]["initial"] == 1.0  # a copy
    with pytest.raises(ConfigError, match=r"cannot set loss.weights.left.w.x: loss.weights.left.w is not a mapping"):
        apply_overrides(data, ["loss.weights.left.w.x=1"])
