"""Case files: a typed schema (dataclasses) and the YAML loader with dotted overrides."""
from .loader import apply_overrides, load_text, parse_override, read_yaml, validate
from .schema import build, spec, suggest, to_dict

__all__ = ["apply_overrides", "build", "load_text", "parse_override", "read_yaml", "spec", "suggest", "to_dict",
           "validate"]
