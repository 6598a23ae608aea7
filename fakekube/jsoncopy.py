"""A deep copy for JSON-shaped data (dicts, lists, scalars), several times faster than ``copy.deepcopy``.

The store never hands out references to its own data, so every read pays for one copy: this is the hot path.
"""

from __future__ import annotations

from typing import Any

# Exact scalar types end the recursion with one set lookup, which is cheaper than ``isinstance`` against a
# union; anything else (containers, subclasses, odd values) takes the general path, so results are unchanged.
_SCALARS = frozenset((str, int, float, bool, type(None)))


def json_copy(value: Any) -> Any:
    t = type(value)
    if t is dict or (t is not list and isinstance(value, dict)):
        return {k: (v if type(v) in _SCALARS else json_copy(v)) for k, v in value.items()}
    if t is list or isinstance(value, list):
        return [v if type(v) in _SCALARS else json_copy(v) for v in value]
    return value
