"""Case files: a typed schema (dataclasses) and the YAML loader with dotted overrides."""
from .loader import apply_overrides, parse_override, read_yaml, validate
from .schema import build, spec, suggest, to_dict

__all__ = ["apply_overrides", "build", "parse_override", "read_yaml", "spec", "suggest", "to_dict", "validate"]
