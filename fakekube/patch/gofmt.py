"""Render values the way Go's ``fmt`` does in the error messages the real server returns.

Errors from apimachinery's strategic merge patch embed ``%v`` renderings of decoded JSON
(``map[name:a value:1]``) and ``reflect.TypeOf`` names (``map[string]interface {}``); clients that
match on these strings see the same text from the fake.
"""

from __future__ import annotations

from typing import Any


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
        return _go_float(value)
    return str(value)


def _go_float(value: float) -> str:
    # %v of a float64 is %g with the shortest representation; exponents get at least two digits.
    if value == int(value) and abs(value) < 1e21:
        text = repr(value)
        if "e" not in text:
            return text[:-2] if text.endswith(".0") else text
    text = repr(value)
    if "e" in text:
        mant, exp = text.split("e")
        sign = exp[0] if exp[0] in "+-" else "+"
        digits = exp.lstrip("+-").rjust(2, "0")
        return f"{mant}e{sign}{digits}"
    return text


def go_type(value: Any) -> str:
    """``reflect.TypeOf(v).String()`` for a value decoded from JSON by apimachinery."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    return type(value).__name__
