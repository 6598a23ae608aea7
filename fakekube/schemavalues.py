"""Value rules of CRD structural schemas that do not depend on the schema tree: the JSON type name of a
value, Go's rendering of numbers in messages, and the string formats that are checked.

kubernetes/kube-openapi ``pkg/validation/{validate,strfmt}`` (as ``fakekube.schema`` cites them); number
texts follow Go's ``fmt.Sprint(float64)``, as kube-openapi's messages print bounds and factors.
"""

from __future__ import annotations

import base64
import ipaddress
import math
import re
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

__all__ = ["FORMATS", "go_float", "go_number", "json_type"]


def go_float(value: float) -> str:
    """``fmt.Sprint(float64)``: shortest digits; exponent form when the exponent is < -4 or >= 6 (%g rules)."""
    if value == 0:
        return "0"
    if math.isinf(value) or math.isnan(value):
        return {math.inf: "+Inf", -math.inf: "-Inf"}.get(value, "NaN")
    sign, digit_tuple, exp = Decimal(repr(float(value))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    assert isinstance(exp, int)
    exponent = len(digits) + exp - 1
    prefix = "-" if sign else ""
    if exponent < -4 or exponent >= 6:
        head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{prefix}{head}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
    return prefix + format(Decimal(digits).scaleb(exp), "f")


def go_number(value: float | int) -> str:
    return str(value) if isinstance(value, int) else go_float(value)


# The kind of a value decoded from JSON: by its exact type (the common case), else by isinstance for a
# subclass, in this order (bool before int: True is an int). Each consumer names the kinds in its own words.
_KIND_CHECKS: tuple[tuple[type, str], ...] = (
    (type(None), "null"), (bool, "bool"), (int, "int"), (float, "float"), (str, "string"), (list, "array"),
    (dict, "object"),
)
_KIND_BY_TYPE: dict[type, str] = dict(_KIND_CHECKS)


def json_kind(value: Any) -> str | None:
    """``null``, ``bool``, ``int``, ``float``, ``string``, ``array`` or ``object``; None for anything else."""
    kind = _KIND_BY_TYPE.get(type(value))
    if kind is not None:
        return kind
    for cls, name in _KIND_CHECKS:
        if isinstance(value, cls):
            return name
    return None


_OPENAPI_TYPES: dict[str | None, str] = {
    "null": "null", "bool": "boolean", "int": "integer", "float": "number", "string": "string", "array": "array",
    "object": "object",
}


def json_type(value: Any) -> str:
    """The OpenAPI type name kube-openapi infers for a decoded JSON value ("" for a non-JSON value)."""
    return _OPENAPI_TYPES.get(json_kind(value), "")


# ------------------------------------------------------------------------------------------ formats

_DATE_TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _is_uuid(v: str) -> bool:
    try:
        uuid.UUID(v)
    except ValueError:
        return False
    return len(v) == 36


def _is_ip(v: str, version: int) -> bool:
    try:
        return ipaddress.ip_address(v).version == version
    except ValueError:
        return False


def _is_byte(v: str) -> bool:
    try:
        base64.b64decode(v, validate=True)
    except ValueError:
        return False
    return True


# Only the formats with a cheap, unambiguous check are emulated; other formats accept every string.
FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": lambda v: _DATE_TIME_RE.fullmatch(v) is not None,
    "datetime": lambda v: _DATE_TIME_RE.fullmatch(v) is not None,
    "date": lambda v: _DATE_RE.fullmatch(v) is not None,
    "uuid": _is_uuid,
    "ipv4": lambda v: _is_ip(v, 4),
    "ipv6": lambda v: _is_ip(v, 6),
    "byte": _is_byte,
}
