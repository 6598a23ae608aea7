"""JSON-shaped values (dicts, lists, scalars): a fast deep copy and JSON equality.

The store never hands out references to its own data, so every read pays for one copy: ``json_copy`` is on
the hot path, several times faster than ``copy.deepcopy``.
"""

from __future__ import annotations

from typing import Any

# Exact scalar types end the recursion with one set lookup, which is cheaper than ``isinstance`` against a
# union; anything else (containers, subclasses, odd values) takes the general path, so results are unchanged.
_SCALARS = frozenset((str, int, float, bool, type(None)))


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON document (no memo, no dispatch: JSON has no shared or cyclic parts)."""
    t = type(value)
    if t is dict or (t is not list and isinstance(value, dict)):
        return {k: (v if type(v) in _SCALARS else json_copy(v)) for k, v in value.items()}
    if t is list or isinstance(value, list):
        return [v if type(v) in _SCALARS else json_copy(v) for v in value]
    return value


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: 1 and 1.0 are the same number, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return a == b
