"""Raw JSON members (a ``runtime.RawExtension``, such as a ControllerRevision's ``data``) keep the very bytes
the request sent, and an immutable one is compared byte for byte.

Go decodes such a member by copying its text verbatim (``RawExtension.UnmarshalJSON``), stores those bytes, and
``ValidateImmutableField`` compares them (``apiequality.Semantic.DeepEqual`` on the ``runtime.Unknown`` the
internal type holds). A PUT sends its own text; a JSON, merge or strategic patch re-encodes the stored object
first, and Go's encoder compacts what a ``Marshaler`` returns and escapes ``<``, ``>``, ``&``, U+2028 and U+2029,
so a member stored with other spelling (a client that writes ``{"spec": {}}`` with spaces, as Python's json does)
comes back changed and every such patch is a 422 ``field is immutable``; an apply keeps the stored bytes of a value
it leaves equal. Observed on kube-apiserver v1.37.2. Sources: apimachinery@v0.37.2 ``pkg/runtime/extension.go``
(``UnmarshalJSON``, ``MarshalJSON``), ``pkg/runtime/conversion.go`` (``Convert_runtime_RawExtension_To_runtime_
Object``); Go ``encoding/json`` (``compact`` of a Marshaler's output, HTML escaping); apiserver@v0.37.2
``pkg/endpoints/handlers/patch.go`` (the current object is encoded before the patch applies); kubernetes@v1.37.2
``pkg/apis/apps/validation/validation.go`` (``ValidateControllerRevisionUpdate``).

The store remembers, per object uid, the members whose stored text is not the compact form (only those: a body
built by a Go client or by fakekube's Python callers is compact)."""

from __future__ import annotations

import json
from typing import Any

from fakekube.errors import FieldError, invalid
from fakekube.validation import FIELD_IMMUTABLE

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WHITESPACE:
        i += 1
    return i


def member_text(text: str, key: str) -> str | None:
    """The text of top-level member ``key`` of the JSON object ``text`` (the last one, as Go decodes), or None."""
    found = None
    try:
        i = _skip(text, 0)
        if text[i] != "{":
            return None
        i = _skip(text, i + 1)
        while i < len(text) and text[i] != "}":
            name, i = _DECODER.raw_decode(text, i)
            i = _skip(text, i)
            i = _skip(text, i + 1)  # past the colon
            start = i
            _, i = _DECODER.raw_decode(text, i)
            if name == key:
                found = text[start:i]
            i = _skip(text, i)
            if i < len(text) and text[i] == ",":
                i = _skip(text, i + 1)
    except (ValueError, IndexError):
        return None
    return found


def go_compact(raw: str) -> str:
    """What Go's encoder writes for a Marshaler's output ``raw``: no insignificant whitespace, HTML escaped."""
    out: list[str] = []
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            out.append(_ESCAPES.get(ch, ch))
        elif ch in _WHITESPACE:
            continue
        else:
            in_string = ch == '"'
            out.append(ch)
    return "".join(out)


def spelled(fields: tuple[str, ...], body: Any) -> dict[str, str]:
    """The raw members among ``fields`` whose text in ``body`` (a request body that kept its text,
    fakekube.decoding.RequestBody) is not the compact form: field -> text."""
    text = getattr(body, "text", None)
    if not fields or text is None:
        return {}
    if isinstance(text, bytes):
        try:
            text = text.decode()
        except UnicodeDecodeError:
            return {}
    found = {}
    for field in fields:
        raw = member_text(text, field)
        if raw is not None and raw != go_compact(raw):
            found[field] = raw
    return found


def immutable_errors(fields: tuple[str, ...], new: dict[str, Any], old: dict[str, Any],
                     new_spelled: dict[str, str], old_spelled: dict[str, str]) -> list[FieldError]:
    """The ``field is immutable`` errors of raw members whose values are equal but whose bytes differ (a value
    that changed is the strategy's own immutable error)."""
    return [invalid(field, new.get(field), FIELD_IMMUTABLE) for field in fields
            if new.get(field) == old.get(field) and new_spelled.get(field) != old_spelled.get(field)]


def remember_spelling(table: dict[str, dict[str, str]], uid: str, found: dict[str, str]) -> None:
    """Record what ``spelled`` found for the object ``uid`` now stores (nothing: every member is compact)."""
    if found:
        table[uid] = found
    else:
        table.pop(uid, None)
