"""JSON bodies byte for byte as kube-apiserver writes them (Go's ``encoding/json``).

- Negotiated responses (objects, lists, Status errors, Tables, discovery, watch events) come from
  apimachinery's JSON serializer, which ends in ``json.NewEncoder(w).Encode``: compact, with a trailing
  newline (``pkg/runtime/serializer/json/json.go``). Clients that quote raw bodies in errors compare them
  exactly (the official client's ``ApiException`` text).
- A pretty request (``?pretty=true``, or a ``curl``/``Wget``/``Mozilla/5.0`` user agent) gets
  ``json.MarshalIndent`` with two spaces and no newline (apiserver ``pkg/endpoints/handlers/negotiation``
  ``isPrettyPrint``).
- ``/version`` is ``WriteRawJSON``: always indented, no newline (``pkg/server/routes/version.go``);
  ``/openapi/v3`` documents are ``json.Marshal``: compact, no newline (kube-openapi ``pkg/handler3``).

Go escapes ``<``, ``>``, ``&``, U+2028 and U+2029 inside strings and writes other non-ASCII text as UTF-8.

Compact bodies are written by orjson (20× faster than ``json.dumps`` on a ConfigMap) wherever its text is the
one ``json.dumps`` writes; ``json.dumps`` stays the reference and writes the rest (``_fast_text``).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from fakekube.jsonvalues import encode_json

_GO_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
               ("\u2029", "\\u2029"))
_PRETTY_AGENTS = ("curl", "Wget", "Mozilla/5.0")
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def _go_text(text: str) -> bytes:
    # Those characters can only occur inside JSON strings, so replacing them in the whole text is safe.
    for raw, escaped in _GO_ESCAPES:
        if raw in text:
            text = text.replace(raw, escaped)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: Go writes U+FFFD, any escaped form keeps the body valid
        return text.encode("utf-8", "replace")


_GO_ESCAPED_BYTES = tuple((raw.encode(), escaped.encode()) for raw, escaped in _GO_ESCAPES)
# Where orjson's float could differ from ``repr``'s: compared over 1.2 million floats (random bit patterns and
# every decade from 1e-25 to 1e30), the two differ only where orjson writes a negative exponent with one digit
# (``2.5e-7``, repr ``2.5e-07``) or a small number in decimals (``0.00001``, repr ``1e-05``): ``_float_differs``
# looks for both. Text inside a string can match too: that document just takes the reference path.
_MANTISSA = frozenset(b"0123456789.")
_VALUE_STARTS = frozenset(b":[,")


def _is_number(data: bytes, at: int) -> bool:
    """Whether the digits (and dot) ending just before ``at`` are a JSON number, not text in a string: preceded
    by an optional minus and by what a value follows in compact JSON."""
    start = at
    while start > 0 and data[start - 1] in _MANTISSA:
        start -= 1
    if start == at:
        return False
    if data[start - 1] == 0x2D:  # "-"
        start -= 1
    return data[start - 1] in _VALUE_STARTS


def _float_differs(data: bytes) -> bool:
    # (``find`` loops: a regex for either pattern costs several times more on a timestamped object; strings
    # hold both often enough — "e-" in a UID's "9e-4", "0.0000" in a MicroTime — to check each match)
    at = data.find(b"0.0000")
    while at >= 0:
        if _is_number(data, at + 2):
            return True
        at = data.find(b"0.0000", at + 1)
    at = data.find(b"e-")
    while at >= 0:
        if _is_number(data, at):
            return True
        at = data.find(b"e-", at + 2)
    return False


def _fast_text(document: Any) -> bytes | None:
    """``json.dumps``'s compact text of a container, Go's escapes applied, as orjson writes it; None when
    orjson's text could differ: a float written differently (``_float_differs``), NaN or an infinity
    (orjson writes null), an integer beyond 64 bits, a key that is not a string, a lone surrogate, a subclass
    of a JSON type, a datetime or a dataclass (all refused by ``encode_json``). Their strings are the same:
    both write UTF-8 and escape ``"``, ``\\`` and control characters alike (checked for every code point)."""
    if type(document) is not dict and type(document) is not list:
        return None
    data = encode_json(document)
    if data is None or _float_differs(data):
        return None
    # Those characters occur only inside strings, and their UTF-8 bytes only as themselves (U+2028 and U+2029
    # start with 0xE2, as no ASCII byte does).
    if data.find(b"<") >= 0 or data.find(b">") >= 0 or data.find(b"&") >= 0 or data.find(b"\xe2") >= 0:
        for raw, escaped in _GO_ESCAPED_BYTES:
            data = data.replace(raw, escaped)
    return data


def marshal(document: Any) -> bytes:
    """``json.Marshal``: compact, no newline."""
    data = _fast_text(document)
    if data is not None:
        return data
    return _go_text(json.dumps(document, separators=(",", ":"), ensure_ascii=False))


def marshal_indent(document: Any) -> bytes:
    """``json.MarshalIndent(v, "", "  ")``."""
    return _go_text(json.dumps(document, indent=2, separators=(",", ": "), ensure_ascii=False))


def encode(document: Any, *, pretty: bool = False) -> bytes:
    """A negotiated JSON response body: the serializer's ``Encode`` (newline-terminated), or indented."""
    return marshal_indent(document) if pretty else marshal(document) + b"\n"


def reencode(body: bytes, *, pretty: bool) -> bytes:
    """A body already encoded by :func:`encode` (a cached discovery document), indented when asked."""
    return marshal_indent(json.loads(body)) if pretty else body


def wants_pretty(query: str, user_agent: str | None) -> bool:
    """``isPrettyPrint``: a parseable ``pretty`` query parameter decides; otherwise the user agent."""
    if "pretty" in query:
        values = parse_qs(query, keep_blank_values=True).get("pretty")
        if values and values[0]:
            return values[0] in _TRUE if values[0] in _TRUE + _FALSE else False
    return bool(user_agent) and user_agent.startswith(_PRETTY_AGENTS)
