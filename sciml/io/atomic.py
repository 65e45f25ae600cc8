"""Atomic file writes: write to a temporary file in the same folder, then ``os.replace`` it into place.

A reader never sees a half-written file, and a crash leaves the previous version intact.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from typing import Iterator

import yaml


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on error it is removed."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_text(path: str, text: str) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)


def write_json(path: str, data) -> None:
    write_text(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def write_yaml(path: str, data) -> None:
    write_text(path, yaml.safe_dump(data, sort_keys=False))
