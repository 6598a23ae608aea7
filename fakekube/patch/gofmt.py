"""Render values the way Go's ``fmt`` does in the error messages the real server returns.

Errors from apimachinery's strategic merge patch embed ``%v`` renderings of decoded JSON
(``map[name:a value:1]``) and ``reflect.TypeOf`` names (``map[string]interface {}``); clients that
match on these strings see the same text from the fake.
"""

from __future__ import annotations

from typing import Any

from fakekube.schemavalues import go_float, json_kind


def go_value(value: Any) -> str:
    """``fmt.Sprintf("%v", v)`` for a value decoded from JSON (maps print with sorted keys)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_value(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    if isinstance(value, float):
        return go_float(value)  # %v of a float64: %g, shortest digits, exponent form from 1e+06 (strconv)
    return str(value)


_GO_TYPES = {"null": "<nil>", "bool": "bool", "int": "int64", "float": "float64", "string": "string",
             "object": "map[string]interface {}", "array": "[]interface {}"}


def go_type(value: Any) -> str:
    """``reflect.TypeOf(v).String()`` for a value decoded from JSON by apimachinery."""
    kind = json_kind(value)
    return _GO_TYPES[kind] if kind is not None else type(value).__name__
