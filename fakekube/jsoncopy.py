"""A deep copy for JSON-shaped data (dicts, lists, scalars), several times faster than ``copy.deepcopy``.

The store never hands out references to its own data, so every read pays for one copy: this is the hot path.
"""

from __future__ import annotations

from typing import Any


def json_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (json_copy(v) if isinstance(v, dict | list) else v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) if isinstance(v, dict | list) else v for v in value]
    return value
