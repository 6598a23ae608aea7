"""Helpers for JSON-shaped documents (dicts, lists, str, int, float, bool, None)."""

from __future__ import annotations

import json
from typing import Any

from fakekube import errors, gojson
from fakekube.jsonvalues import json_copy
from fakekube.schemavalues import json_kind


def go_key(value: Any) -> Any:
    """A hashable key with Go's interface equality: 1 (int64) and 1.0 (float64) differ, as do 1 and true."""
    if isinstance(value, dict | list):
        return ("json", json.dumps(value, sort_keys=True))
    return (type(value), value)


def decode_json(body: Any) -> Any:
    """Decode a request body (bytes, str, or an already decoded document, which is copied) as Go reads JSON
    (``fakekube.gojson``); malformed JSON → 400 with Go's syntax error."""
    if isinstance(body, bytes | bytearray | memoryview | str):
        try:
            return gojson.loads(bytes(body) if not isinstance(body, str | bytes) else body)
        except gojson.JSONSyntaxError as exc:
            raise errors.BadRequest(str(exc)) from None
    return json_copy(body)


_GO_JSON_KINDS: dict[str | None, str] = {
    "bool": "bool", "int": "number", "float": "number", "string": "string", "array": "array", "object": "object",
}


def go_json_kind(value: Any) -> str:
    """The JSON kind word encoding/json uses in "cannot unmarshal <kind> into Go value of type ..."."""
    return _GO_JSON_KINDS.get(json_kind(value), "null")


def own_top_levels(result: dict[str, Any], base: dict[str, Any]) -> None:
    """Give ``result`` (a new top-level dict) its own shallow copy of each top-level map or list it still
    shares, by identity, with ``base`` at the same key, so setting or dropping a key of the object or of one
    of its top-level values never reaches ``base``."""
    for key, value in result.items():
        kind = type(value)
        if (kind is dict or kind is list) and value is base.get(key):
            result[key] = value.copy()
