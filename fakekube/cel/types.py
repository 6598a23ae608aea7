"""A structural schema node as a CEL type, and a JSON value as CEL sees it.

After k8s.io/apiserver ``pkg/cel/common/schemas.go`` (``SchemaDeclType``) and ``pkg/cel/escaping.go``
(``Escape``), v0.37.2. cel-go gives an object with ``properties`` a type of its own whose fields are known
at compile time; cel-expr-python has no such types without protobuf descriptors, so such an object is a
``map(string, dyn)`` here: a misspelt field or a wrong type below it is found when the rule runs ("no such
key"), not when the CRD is created (docs/admission.md, "CRD validation rules").
"""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from cel_expr_python import cel

T = cel.Type
OBJECT = T.Map(T.STRING, T.DYN)

_RESERVED = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import",
    "let", "loop", "package", "namespace", "return", "var", "void", "while",
})
_IDENT_CHARS = re.compile(r"^[a-zA-Z0-9_./-]*$")
_EXPAND = re.compile(r"__|[-./]")
_EXPANSIONS = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}


def escape(name: str) -> str | None:
    """``cel.Escape``: a property name as a CEL identifier, or None when it has no CEL spelling."""
    if not name or name[0].isdigit():
        return None
    if name in _RESERVED:
        return f"__{name}__"
    if not _IDENT_CHARS.match(name):
        return None
    return _EXPAND.sub(lambda m: _EXPANSIONS[m.group(0)], name)


def is_int_or_string(schema: dict[str, Any]) -> bool:
    return schema.get("x-kubernetes-int-or-string") is True


def cel_type(schema: dict[str, Any]) -> Any:
    """The CEL type of a value of ``schema``, or None for a node CEL does not see (no type)."""
    if is_int_or_string(schema):
        return T.DYN
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        item_type = cel_type(items) if isinstance(items, dict) else None
        return T.List(item_type) if item_type is not None else None
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            value_type = cel_type(extra)
            return T.Map(T.STRING, value_type) if value_type is not None else None
        return OBJECT
    if kind == "string":
        return {"byte": T.BYTES, "duration": T.DURATION, "date": T.TIMESTAMP,
                "date-time": T.TIMESTAMP}.get(schema.get("format", ""), T.STRING)
    return {"boolean": T.BOOL, "integer": T.INT, "number": T.DOUBLE}.get(kind or "")


_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _duration(text: str) -> timedelta | str:
    # time.ParseDuration's spelling ("1h30m", "-1.5s"); a value the schema let through that is not one stays text.
    sign, body = (-1, text[1:]) if text.startswith("-") else (1, text.lstrip("+"))
    if body == "0":
        return timedelta(0)
    pos, seconds = 0, 0.0
    for m in _DURATION_PART.finditer(body):
        if m.start() != pos:
            return text
        seconds += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if pos != len(body) or not body:
        return text
    return timedelta(seconds=sign * seconds)


def _timestamp(text: str, date_only: bool) -> datetime | str:
    try:
        if date_only:
            return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
        value = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return text
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def to_cel(schema: dict[str, Any], value: Any, *, root: bool = False, typed: bool = True) -> Any:
    """``value`` (JSON) as the rules of ``schema`` see it. Object members the schema does not declare are
    hidden (cel-go's object types expose declared fields only), and their names are escaped; at a resource
    root only ``apiVersion``, ``kind`` and ``metadata.name``/``generateName`` are added
    (``WithTypeAndObjectMeta``).

    ``typed``: the value's place has a declared CEL type (it is ``self``, or an item of a typed list or map
    below it). cel-expr-python takes a timestamp or a duration only there, so below an object (whose members
    are ``dyn`` here) ``date-time`` and ``duration`` strings stay strings."""
    if value is None or is_int_or_string(schema):
        return value
    kind = schema.get("type")
    if kind == "array" and isinstance(value, list):
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        return [to_cel(items, v, typed=typed) for v in value]
    if kind == "object" and isinstance(value, dict):
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return {k: to_cel(extra, v, typed=typed) for k, v in value.items()}
        props = schema.get("properties") or {}
        out: dict[str, Any] = {}
        for key, member in value.items():
            sub = props.get(key)
            name = escape(key)
            if isinstance(sub, dict) and name is not None and cel_type(sub) is not None:
                out[name] = to_cel(sub, member, typed=False)
        if root:
            for key in ("apiVersion", "kind"):
                if isinstance(value.get(key), str):
                    out[key] = value[key]
            meta = value.get("metadata")
            if isinstance(meta, dict):
                out["metadata"] = {k: meta[k] for k in ("name", "generateName") if isinstance(meta.get(k), str)}
        return out
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "string" and isinstance(value, str):
        fmt = schema.get("format")
        if fmt == "byte":
            try:
                return base64.b64decode(value, validate=True)
            except ValueError:
                return value
        if fmt == "duration" and typed:
            return _duration(value)
        if fmt in ("date", "date-time") and typed:
            return _timestamp(value, fmt == "date")
    return value
