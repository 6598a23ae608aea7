"""The stored ``metadata.managedFields`` list, carried into a write's new version instead of copied.

Half of a stored Pod's nodes are its FieldsV1 trees, and a write that does not name ``managedFields`` leaves
them as stored until the field manager rewrites the list: a PUT whose body sends the stored entries back, a
patch that does not mention them. Copying and decoding them would only rebuild the same list. The store
keeps it instead: the write works on the object with an empty list standing in (same key, same place, so
key order and every message are unchanged), then puts the stored list back. Stored versions may share it —
stored objects are never mutated, and ``patch.managed_fields.record_update`` builds a new list (editing the
trees copy-on-write) instead of changing the stored one — while callers still get copies (every answer is
``Record.copy`` or ``json_copy``).

The stored entries decoded cleanly when they were written (the store wrote them, or a decoded body), so the
list needs no decoding either.
"""

from __future__ import annotations

from typing import Any

from fakekube.jsonvalues import encode_json

_FIELD = "managedFields"


def stored_entries(stored: dict[str, Any] | None) -> list[Any] | None:
    """The stored object's non-empty managedFields list, or None."""
    meta = stored.get("metadata") if isinstance(stored, dict) else None
    entries = meta.get(_FIELD) if isinstance(meta, dict) else None
    return entries if type(entries) is list and entries else None


def with_placeholder(obj: dict[str, Any]) -> dict[str, Any]:
    """A shallow view of ``obj`` whose ``metadata.managedFields`` is an empty list (``obj`` has a list there);
    nothing of ``obj`` is changed."""
    meta = {key: ([] if key == _FIELD else value) for key, value in obj["metadata"].items()}
    return {key: (meta if key == "metadata" else value) for key, value in obj.items()}


def put_back(obj: dict[str, Any], entries: list[Any]) -> None:
    """Replace the placeholder the write carried (if it is still there) with the stored list."""
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        value = meta.get(_FIELD)
        if type(value) is list and not value:
            meta[_FIELD] = entries


def body_sends_stored(body_meta: Any, entries: list[Any]) -> bool:
    """Whether a PUT body's metadata carries the stored entries unchanged (the same JSON, byte for byte)."""
    if not isinstance(body_meta, dict):
        return False
    sent = body_meta.get(_FIELD)
    if type(sent) is not list or len(sent) != len(entries):
        return False
    # Equal bytes, equal JSON (keys in the same order, ``1`` is not ``1.0``); encode_json gives None for a
    # value whose text would not stand for it (a NaN is written as null).
    text = encode_json(sent)
    return text is not None and text == _stored_json(entries)


_last_stored: tuple[Any, bytes | None] = (None, None)  # the latest stored list seen and its JSON


def _stored_json(entries: list[Any]) -> bytes | None:
    """The JSON of a stored managedFields list. Stored lists are never mutated and successive versions share
    one (see above), so the latest one's bytes are kept, by identity (the reference held keeps it alive; the
    pair is replaced in one assignment, so threads serving other stores never see a mixed one)."""
    global _last_stored
    last = _last_stored
    if last[0] is entries:
        return last[1]
    data = encode_json(entries)
    _last_stored = (entries, data)
    return data


def patch_leaves_managed_fields(patch: Any, patch_type: str) -> bool:
    """Whether applying ``patch`` never reads or writes ``metadata.managedFields`` (it may still replace or drop
    the whole metadata: then the placeholder is gone with it). Conservative: False when it cannot be told."""
    if patch_type.startswith(("application/merge-patch", "application/strategic-merge-patch")):
        if not isinstance(patch, dict):
            return False
        # A strategic merge directive names a field after a slash ($setElementOrder/managedFields, ...).
        if any(key.endswith("/metadata") for key in patch):
            return False
        meta = patch.get("metadata")
        return not isinstance(meta, dict) or not any(
            key == _FIELD or key.endswith("/" + _FIELD) for key in meta)
    if patch_type.startswith("application/json-patch"):
        if not isinstance(patch, list):
            return False
        for op in patch:
            if not isinstance(op, dict):
                return False
            for field in ("path", "from"):
                pointer = op.get(field)
                if field == "from" and pointer is None:
                    continue
                # The root and /metadata hold the list (a test compares it, a copy or move carries it).
                if (not isinstance(pointer, str) or pointer in ("", "/metadata")
                        or pointer.startswith("/metadata/" + _FIELD)):
                    return False
        return True
    return False
