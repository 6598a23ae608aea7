"""A JSON path into a structural schema: a rule's ``fieldPath`` and a selectable field's ``jsonPath``.

After k8s.io/apiextensions-apiserver ``pkg/apiserver/schema/cel/validation.go`` (``ValidFieldPath``), v0.37.2:
``.name`` and ``['name']`` steps through ``properties`` (or a map's keys through ``additionalProperties``);
the answer is the path as ``field.Path`` prints it, and the schema node it reaches.
"""

from __future__ import annotations

import re
from typing import Any

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", "\\": "\\"}


class PathError(ValueError):
    """Why a path is not valid, in upstream's words."""


def _tokens(path: str) -> list[str]:
    # The scanner upstream splits with: '.', '[' and ']' alone, a single-quoted string whole, text between.
    out: list[str] = []
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == "'":
            j = i + 1
            while j < len(path) and not (path[j] == "'" and path[j - 1] != "\\"):
                j += 1
            out.append(path[i:j + 1])
            i = j + 1
        elif ch in ".[]":
            out.append(ch)
            i += 1
        else:
            j = i
            while j < len(path) and path[j] not in ".[]":
                j += 1
            out.append(path[i:j])
            i = j
    return out


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) not in _ESCAPES:
            raise PathError(f"invalid string literal: invalid escape char {m.group(0)}")
        return _ESCAPES[m.group(1)]
    return re.sub(r"\\(.)", one, text)


def valid_field_path(path: str, schema: dict[str, Any], *, allow_array_notation: bool = True) -> tuple[str, Any]:
    """The normalised path and the node it names; ``PathError`` when it names nothing."""
    parts: list[str] = []
    node: Any = schema
    tokens = _tokens(path)
    i = 0

    def step(name: str) -> None:
        nonlocal node
        props = node.get("properties") if isinstance(node, dict) else None
        extra = node.get("additionalProperties") if isinstance(node, dict) else None
        if props is not None:
            if name not in props:
                parts.append(f".{name}" if parts else name)
                raise PathError("does not refer to a valid field")
            parts.append(f".{name}" if parts else name)
            node = props[name]
        elif isinstance(extra, dict):
            parts.append(f"[{name}]")
            node = extra
        else:
            raise PathError("does not refer to a valid field")

    while i < len(tokens):
        tok = tokens[i]
        if tok == "[":
            if not allow_array_notation:
                raise PathError("array notation is not allowed")
            if i + 1 >= len(tokens):
                raise PathError("unexpected end of JSON path")
            literal = tokens[i + 1]
            if len(literal) < 2 or literal[0] != "'" or literal[-1] != "'":
                raise PathError(f"expected single quoted string but got {literal}")
            step(_unescape(literal[1:-1]))
            if i + 2 >= len(tokens):
                raise PathError("unexpected end of JSON path")
            if tokens[i + 2] != "]":
                raise PathError(f"expected ] but got {tokens[i + 2]}")
            i += 3
        elif tok == ".":
            if i + 1 >= len(tokens):
                raise PathError("unexpected end of JSON path")
            step(tokens[i + 1])
            i += 2
        else:
            raise PathError(f"expected [ or . but got: {tok}")
    return "".join(parts), node
