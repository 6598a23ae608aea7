"""List continue tokens, encoded and decoded as the real storage layer does, with its error texts.

A token is ``base64.RawURLEncoding`` of ``{"v":"meta.k8s.io/v1","rv":<revision>,"start":<key>}``: the
revision the first page was read at (-1: continue at the latest one, what a 410 for a too-old token offers)
and the key to start from (the last key returned followed by a NUL byte, so the next page starts after it).
Keys here are the store's sort keys (``namespace/name``), not etcd paths: clients never read them.

Decoding fails as apiserver ``pkg/storage/continue.go`` ``DecodeContinue`` fails (v0.37.2), its error wrapped
by the caller in ``invalid continue token: ...``: Go's base64 and encoding/json messages for a token that is
not base64 or not JSON of the right shape (json matches field names case-insensitively and ignores unknown
ones), then the checks of the version, the revision and the start key.
"""

from __future__ import annotations

import base64
import json
import posixpath
from typing import Any

from fakekube import gojson

VERSION = "meta.k8s.io/v1"
_RAW_URL = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_FIELDS = {"v": "string", "rv": "int64", "start": "string"}  # continueToken's json names and Go types


class InvalidToken(ValueError):
    """``str()`` is DecodeContinue's error text."""


def encode(rv: int, start: str) -> str:
    token = json.dumps({"v": VERSION, "rv": rv, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")


def decode(token: str) -> tuple[int, str]:
    """(revision, start key) of a token; raises ``InvalidToken``."""
    data = _raw_url_decode(token.encode("utf-8", "surrogateescape"))
    values = _unmarshal(data)
    version, rv, start = values.get("v", ""), values.get("rv", 0), values.get("start", "")
    if version != VERSION:
        raise InvalidToken(f"continue key is not valid: server does not recognize this encoded version {version}")
    if rv == 0:
        raise InvalidToken(f"continue key is not valid: incorrect encoded start resourceVersion (version {VERSION})")
    if not start:
        raise InvalidToken(f"continue key is not valid: encoded start key empty (version {VERSION})")
    rooted = start if start.startswith("/") else "/" + start
    # path.Clean: a key that climbs out of its prefix (or is not in canonical form) is refused
    if rooted.startswith("//") or posixpath.normpath(rooted) != rooted:
        raise InvalidToken(f"continue key is not valid: {start}")
    return rv, rooted[1:]


def _raw_url_decode(src: bytes) -> bytes:
    """``base64.RawURLEncoding.DecodeString``: its error names the offset of the first illegal byte."""
    quantum = 0
    for i, byte in enumerate(src):
        if byte in (0x0A, 0x0D):  # newlines are skipped
            continue
        if byte not in _RAW_URL:
            raise InvalidToken(f"continue key is not valid: illegal base64 data at input byte {i}")
        quantum = (quantum + 1) % 4
    if quantum == 1:  # a lone character cannot carry a byte: reported where its quantum started
        last = max(i for i, b in enumerate(src) if b not in (0x0A, 0x0D))
        raise InvalidToken(f"continue key is not valid: illegal base64 data at input byte {last}")
    clean = bytes(b for b in src if b not in (0x0A, 0x0D))
    return base64.urlsafe_b64decode(clean + b"=" * (-len(clean) % 4))


class _Number(str):
    """A JSON number's literal text (Go quotes it in a type error)."""


class _Object(list):
    """A JSON object as its (key, value) pairs, in order, duplicates kept (the last one wins in Go)."""


def _unmarshal(data: bytes) -> dict[str, Any]:
    message = gojson.syntax_error(data)  # encoding/json checks the whole text before it decodes a field
    if message is not None:
        raise InvalidToken(f"continue key is not valid: {message}")
    doc = json.loads(data.decode("latin-1"), parse_int=_Number, parse_float=_Number, object_pairs_hook=_Object)
    if doc is None:
        return {}
    if not isinstance(doc, _Object):
        raise InvalidToken(f"continue key is not valid: json: cannot unmarshal {_kind(doc)} into Go value of "
                           "type storage.continueToken")
    values: dict[str, Any] = {}
    first_error: str | None = None
    for key, value in doc:
        name = key if key in _FIELDS else next((f for f in _FIELDS if f.lower() == key.lower()), None)
        if name is None or value is None:
            continue
        go_type = _FIELDS[name]
        problem = _type_error(value, go_type)
        if problem is None:
            values[name] = int(value) if go_type == "int64" else value
        elif first_error is None:
            first_error = (f"json: cannot unmarshal {problem} into Go struct field continueToken.{name} "
                           f"of type {go_type}")
    if first_error is not None:
        raise InvalidToken(f"continue key is not valid: {first_error}")
    return values


def _kind(value: Any) -> str:
    if isinstance(value, _Number):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Object):
        return "object"
    return "array"


def _type_error(value: Any, go_type: str) -> str | None:
    kind = _kind(value)
    if go_type == "string":
        return None if kind == "string" else kind
    if kind != "number":
        return kind
    text = str(value)
    if any(c in text for c in ".eE") or not _INT64_MIN <= int(text) <= _INT64_MAX:
        return f"number {text}"
    return None
