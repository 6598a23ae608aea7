"""The JSONPath subset that CRD ``additionalPrinterColumns`` use, evaluated on plain JSON values.

The real server hands a column's ``jsonPath`` to client-go's full JSONPath engine, but printer columns in the
wild stay within a small subset, which is all this module understands:

- fields: ``.spec.replicas``, ``.metadata.labels['app.kubernetes.io/name']`` (bracketed names may hold dots);
- array indexes: ``.spec.containers[0].image``, negative ones counting from the end;
- wildcards: ``.spec.containers[*].name``;
- filters on one field of each element: ``.status.conditions[?(@.type=="Ready")].status`` (``==`` or ``!=``
  against a quoted string, a number, ``true``/``false``; or ``[?(@.field)]`` for presence).

A missing key is no result, not an error (the server calls ``AllowMissingKeys(true)``). A path outside the
subset raises ``JSONPathError`` when parsed, so a column is rejected once, not per object.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from fakekube.jsonvalues import json_equal


class JSONPathError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Field:
    name: str


@dataclass(frozen=True, slots=True)
class Index:
    index: int


@dataclass(frozen=True, slots=True)
class Wildcard:
    pass


@dataclass(frozen=True, slots=True)
class Filter:
    path: tuple[str, ...]  # the field of each element, after "@."
    op: str | None  # "==", "!=" or None (presence)
    value: Any = None


Step = Field | Index | Wildcard | Filter

_NAME = re.compile(r"[A-Za-z0-9_$-]+")
_FILTER = re.compile(r"\[\?\(\s*@((?:\.[A-Za-z0-9_$-]+)+)\s*(?:(==|!=)\s*(.+?)\s*)?\)\]")


def parse(path: str) -> tuple[Step, ...]:
    """``.a.b[0]`` → steps. Also accepts the ``{...}`` template braces and a leading ``$``."""
    text = path.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if text.startswith("$"):
        text = text[1:]
    steps: list[Step] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == ".":
            match = _NAME.match(text, i + 1)
            if match is None:
                if text.startswith("[", i + 1):  # ".[0]" is tolerated, as upstream does
                    i += 1
                    continue
                raise JSONPathError(f"unrecognized JSONPath {path!r} at offset {i}")
            steps.append(Field(match.group()))
            i = match.end()
        elif text.startswith("[?", i):
            match = _FILTER.match(text, i)
            if match is None:
                raise JSONPathError(f"unsupported filter in JSONPath {path!r}")
            field_path = tuple(match.group(1).split(".")[1:])
            op = match.group(2)
            steps.append(Filter(field_path, op, _literal(match.group(3), path) if op else None))
            i = match.end()
        elif char == "[":
            end = text.find("]", i)
            if end < 0:
                raise JSONPathError(f"unclosed [ in JSONPath {path!r}")
            inner = text[i + 1:end].strip()
            if inner == "*":
                steps.append(Wildcard())
            elif len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
                steps.append(Field(inner[1:-1]))
            else:
                try:
                    steps.append(Index(int(inner)))
                except ValueError:
                    raise JSONPathError(f"unsupported subscript [{inner}] in JSONPath {path!r}") from None
            i = end + 1
        else:
            raise JSONPathError(f"unrecognized JSONPath {path!r} at offset {i}")
    if not steps:
        raise JSONPathError(f"empty JSONPath {path!r}")
    return tuple(steps)


def _literal(text: str, path: str) -> Any:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    try:
        return json.loads(text)
    except ValueError:
        raise JSONPathError(f"unsupported filter value {text!r} in JSONPath {path!r}") from None


def find(steps: tuple[Step, ...], value: Any) -> list[Any]:
    """Every value the path reaches, in document order (empty when nothing matches)."""
    current = [value]
    for step in steps:
        nxt: list[Any] = []
        for node in current:
            if isinstance(step, Field):
                if isinstance(node, dict) and step.name in node:
                    nxt.append(node[step.name])
            elif isinstance(step, Index):
                if isinstance(node, list) and -len(node) <= step.index < len(node):
                    nxt.append(node[step.index])
            elif isinstance(step, Wildcard):
                if isinstance(node, list):
                    nxt.extend(node)
                elif isinstance(node, dict):
                    nxt.extend(node.values())
            elif isinstance(node, list):
                nxt.extend(item for item in node if _matches(step, item))
        current = nxt
    return current


def _matches(step: Filter, item: Any) -> bool:
    node = item
    for name in step.path:
        if not isinstance(node, dict) or name not in node:
            return False
        node = node[name]
    if step.op is None:
        return True
    # JSON equality: 1 == 1.0, but a bool never equals a number (unlike Python's True == 1).
    equal = json_equal(node, step.value)
    return equal if step.op == "==" else not equal
