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
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

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


def marshal(document: Any) -> bytes:
    """``json.Marshal``: compact, no newline."""
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
