"""The field checks cel-go's type checker makes that a ``map(string, dyn)`` object cannot: ``self.nope`` on
an object whose schema has no property ``nope`` is ``undefined field 'nope'`` when the CRD is created, and a
``matches`` whose pattern literal RE2 refuses is ``invalid matches argument``
(k8s.io/apiserver ``pkg/cel/environment/base.go``: ``cel.ValidateRegexLiterals``, v0.37.2).

A light scan of the expression's tokens, not a parser: chains ``self.a.b`` (and ``oldSelf.a.b``) are followed
through the schema's properties and maps while the names are plain field selections; the error is placed where
cel-go places it (the ``.`` of the selection, or the ``(`` of ``has(...)`` for its last field).
"""

from __future__ import annotations

import re
from typing import Any

from fakekube import goregexp
from fakekube.cel import types as celtypes

_TOKEN = re.compile(r"""
    (?P<str>[rRbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?[uU]?)
  | (?P<ws>\s+)
  | (?P<op>\.\?|[.()\[\],])
  | (?P<other>.)
""", re.VERBOSE | re.DOTALL)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "other"
        if kind != "ws":
            out.append((kind, m.group(0), m.start()))
    return out


def _where(text: str, offset: int) -> tuple[int, int, str]:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return line, offset - start + 1, text[start:] if end < 0 else text[start:end]


def issue(text: str, offset: int, message: str) -> tuple[int, int, str]:
    """One error in cel-go's form, with its position for sorting."""
    line, col, source = _where(text, offset)
    return line, col, f"ERROR: <input>:{line}:{col}: {message}\n | {source}\n | {'.' * (col - 1)}^"


def _fields(schema: dict[str, Any], root: bool) -> dict[str, dict[str, Any]] | None:
    """The members a field selection may name on a value of ``schema`` (escaped name to schema), or None when
    it is not an object with declared properties (a map, a list, a scalar: not checked here)."""
    if schema.get("type") != "object" or isinstance(schema.get("additionalProperties"), dict):
        return None
    out: dict[str, dict[str, Any]] = {}
    for name, prop in (schema.get("properties") or {}).items():
        escaped = celtypes.escape(name)
        if escaped is not None and isinstance(prop, dict) and celtypes.cel_type(prop) is not None:
            out[escaped] = prop
    if root:
        out.setdefault("apiVersion", {"type": "string"})
        out.setdefault("kind", {"type": "string"})
        out["metadata"] = {"type": "object", "properties": {"name": {"type": "string"},
                                                            "generateName": {"type": "string"}}}
    return out


def check(text: str, schema: dict[str, Any], *, root: bool, variables: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """The undefined fields and bad ``matches`` literals of ``text``, for a rule on ``schema``."""
    toks = _tokens(text)
    found: list[tuple[int, int, str]] = []
    for i, (kind, value, _) in enumerate(toks):
        if kind == "ident" and value in variables and not (i > 0 and toks[i - 1][1] in (".", ".?")):
            found += _chain(text, toks, i, schema, root)
        if (kind == "ident" and value == "matches" and 0 < i < len(toks) - 3 and toks[i - 1][1] == "."
                and toks[i + 1][1] == "(" and toks[i + 2][0] == "str" and toks[i + 3][1] == ")"):
            pattern = _literal(toks[i + 2][1])
            if pattern is not None and goregexp.syntax_error(pattern) is not None:
                found.append(issue(text, toks[i + 2][2], "invalid matches argument"))
    return found


def _chain(text: str, toks: list[tuple[str, str, int]], start: int, schema: dict[str, Any],
           root: bool) -> list[tuple[int, int, str]]:
    in_has = start >= 2 and toks[start - 1][1] == "(" and toks[start - 2][1] == "has"
    node, is_root = schema, root
    j = start + 1
    while j + 1 < len(toks) and toks[j][1] == "." and toks[j + 1][0] == "ident":
        if j + 2 < len(toks) and toks[j + 2][1] == "(":
            return []  # a method call: its receiver's type decides, not a field
        fields = _fields(node, is_root)
        if fields is None:
            return []
        name = toks[j + 1][1]
        if name not in fields:
            last = not (j + 2 < len(toks) and toks[j + 2][1] in (".", ".?", "["))
            at = toks[start - 1][2] if in_has and last else toks[j][2]
            return [issue(text, at, f"undefined field '{name}'")]
        node, is_root = fields[name], fields[name].get("x-kubernetes-embedded-resource") is True
        j += 2
    return []


_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
                   "'": "'", '"': '"', "`": "`", "?": "?"}


def _literal(token: str) -> str | None:
    """A CEL string literal's value (None for the forms not handled: bytes, octal and unicode escapes)."""
    prefix = ""
    while token and token[0] in "rRbB":
        prefix += token[0].lower()
        token = token[1:]
    if "b" in prefix:
        return None
    quote = token[:3] if token[:3] in ("'''", '"""') else token[0]
    body = token[len(quote):-len(quote)]
    if "r" in prefix:
        return body
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt not in _SIMPLE_ESCAPES:
                return None
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def typed_rewrite(text: str, schema: dict[str, Any], *, root: bool,
                  variables: tuple[str, ...]) -> tuple[str, dict[str, dict[str, Any]]]:
    """``text`` with each field chain (``self.a.b``, not inside ``has()``) replaced by a variable of the same
    length, and those variables' schemas: compiled with each variable declared with its member's CEL type, the
    expression is type-checked as cel-go checks it (its object types know their members' types), and its
    errors keep their columns."""
    toks = _tokens(text)
    out = list(text)
    names: dict[str, str] = {}
    schemas: dict[str, dict[str, Any]] = {}
    for i, (kind, value, at) in enumerate(toks):
        if kind != "ident" or value not in variables or (i > 0 and toks[i - 1][1] in (".", ".?")):
            continue
        if i >= 2 and toks[i - 1][1] == "(" and toks[i - 2][1] == "has":
            continue
        node, is_root, j, end, path = schema, root, i + 1, -1, value
        member: dict[str, Any] | None = None
        while j + 1 < len(toks) and toks[j][1] == "." and toks[j + 1][0] == "ident":
            if j + 2 < len(toks) and toks[j + 2][1] == "(":
                break
            fields = _fields(node, is_root)
            if fields is None or toks[j + 1][1] not in fields:
                break
            member = fields[toks[j + 1][1]]
            path += "." + toks[j + 1][1]
            end = toks[j + 1][2] + len(toks[j + 1][1])
            node, is_root = member, member.get("x-kubernetes-embedded-resource") is True
            j += 2
        if member is None or text[at:end] != path or "\n" in text[at:end]:
            continue  # nothing selected, or spaces inside the chain: left as it is
        name = names.get(path)
        if name is None:
            name = f"v{len(names)}".ljust(len(path), "_")
            if len(name) > len(path):
                continue
            names[path] = name
            schemas[name] = member
        out[at:end] = list(name)
    return "".join(out), schemas
