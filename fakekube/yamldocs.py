"""YAML documents read fast: libyaml's parser where PyYAML has it, and manifest files parsed once per process.

PyYAML's pure-Python parser took ~18% of a short simulation just to read the agent-sandbox CRDs. Its
``CSafeLoader`` is the same safe constructor on libyaml's parser, so it builds the same values. Errors are
reported by the pure-Python parser (its messages and marks are the ones users and tests have seen), which
re-reads a text only when libyaml refused it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import yaml

from fakekube.jsonvalues import json_copy

_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def load_all(text: str) -> list[Any]:
    """Every document of a YAML stream (``yaml.safe_load_all``); a ``yaml.YAMLError`` as PyYAML words it."""
    if _FAST_LOADER is not None:
        try:
            return list(yaml.load_all(text, Loader=_FAST_LOADER))
        except yaml.YAMLError:
            pass  # the pure-Python parser below says what is wrong, in its own words
    return list(yaml.safe_load_all(text))


_FILES: dict[tuple[str, int, int], list[Any]] = {}
_FILES_LOCK = threading.Lock()


def load_file(path: Path) -> list[Any]:
    """The documents of a YAML file, parsed once per process while the file is unchanged (same size and
    modification time); every call gets its own copy."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _FILES_LOCK:
        docs = _FILES.get(key)
    if docs is None:
        docs = load_all(path.read_text())
        with _FILES_LOCK:
            if len(_FILES) > 256:
                _FILES.clear()
            _FILES[key] = docs
    return json_copy(docs)
