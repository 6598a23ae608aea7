"""Decoding only what a write changed: the top-level fields of a body or a patch's result that are not the
stored object's own.

A stored object of a built-in kind decoded cleanly when it was written (and defaulting adds only declared
fields), so a field of a write that is, type for type, the stored field decodes to itself with nothing to
report: the typed decoder would walk it only to copy it. These helpers hand the decoder the other fields
alone — in document order, under the same root type, so a value of the wrong type or an unknown field is
found and named exactly as a whole-object decode names it — and copy the unchanged ones in C.

Only a kind served in its storage version takes this path (a conversion could make a stored field read
differently through another version).
"""

from __future__ import annotations

from typing import Any

from fakekube import decoding
from fakekube.apimodel.decode_over import flat_fields
from fakekube.jsonvalues import decode_json_bytes, json_text, same_json_text
from fakekube.records import Record
from fakekube.resources import ResourceType
from fakekube.verbs.shared_fields import body_sends_stored, put_back, stored_entries, with_placeholder


def same_as_stored(rt: ResourceType, stored: dict[str, Any] | None) -> bool:
    """Whether ``stored`` can stand for already-decoded fields of a write through ``rt``."""
    return (stored is not None and rt.model is not None and rt.to_storage is None and rt.from_storage is None
            and stored.get("apiVersion") == rt.api_version)


def decode_update_body(rt: ResourceType, body: dict[str, Any], record: Record,
                       sends_stored: bool = False) -> tuple[dict[str, Any], list[str]]:
    """``decoding.decode_body(rt, body)`` (the copy and its unknown fields) for a PUT over ``record``;
    ``sends_stored``: the body is the stored version's JSON itself (``verbs.noop.sends_stored``)."""
    if sends_stored:
        # Every top-level field is then the stored one, type for type and byte for byte (the text of an object
        # is its members' texts in order): ``_split`` would find them all unchanged, so the decode is a copy of
        # each, and one copy of the whole is the same document.
        return record.read(), []
    stored = record.obj
    entries = stored_entries(stored)
    if entries is not None:
        meta, old_meta = body.get("metadata"), stored["metadata"]
        if meta is not old_meta and meta != old_meta and body_sends_stored(meta, entries):
            body = with_placeholder(body)
        else:
            entries = None

    def kept(key: str, value: Any) -> Any:
        text = _stored_field_text(record, key, value)
        return None if text is None else decode_json_bytes(text)

    decoded = decoding.decode_body(rt, body, kept)
    value = decoded.value
    if entries is not None:
        put_back(value, entries)
    return value, decoded.unknown


def check_update_body(rt: ResourceType, body: dict[str, Any], record: Record,
                      based_on: dict[str, Any] | None = None) -> list[str]:
    """``decoding.check_body(rt, body)`` (the unknown fields, or the 400) for a PUT over ``record``.

    ``based_on``: another stored version of the type (a stale PUT's body names the one it was read from): a
    field that is its field, type for type and byte for byte, decoded cleanly when that version was written,
    as one that is the current version's did, and needs no decoding either."""
    changed, unchanged, entries = _split(body, record, flat_fields(rt.model.decoder))
    if based_on is not None and changed and same_as_stored(rt, based_on):
        kept = {key: value for key, value in changed.items() if not _same_field(value, based_on.get(key, _MISSING))}
        if len(kept) < len(changed):
            return decoding.check_body(rt, kept)
    return decoding.check_body(rt, changed if unchanged or entries is not None else body)


def _same_field(value: Any, old: Any) -> bool:
    """Whether a top-level map or list field of a body is ``old`` (a stored version's), byte for byte."""
    return old is not _MISSING and type(value) in (dict, list) and same_json_text(value, old)


def _stored_field_text(record: Record, key: str, value: Any) -> bytes | None:
    """The JSON of the stored version's field ``key`` when ``value`` (a body's top-level map or list) is that
    field byte for byte, else None."""
    old = record.obj.get(key, _MISSING)
    if value is old:  # the stored field itself (a body built over a cache)
        return record.field_json(key)
    if old is not _MISSING and type(value) is type(old) and value == old:
        # Equal bytes of equal values: equal keys in the same order and the same JSON literals (``1`` is not
        # ``1.0``; the stored side's bytes are exact, and ``==`` has told a NaN from the null it is written as).
        text = json_text(value)
        if text is not None and text == record.field_json(key):
            return text
    return None


def _split(body: dict[str, Any], record: Record,
           flat: frozenset[str]) -> tuple[dict[str, Any], dict[str, bytes], list[Any] | None]:
    """The body's fields that need decoding (with the stored managedFields entries left out when the body
    sends them back, see verbs.shared_fields), the JSON of those that are the stored ones byte for byte, and
    the stored entries when they were left out. ``flat`` (``apimodel.decode_over.flat_fields``): fields decoded whatever
    they are, as checking them is cheaper than comparing them."""
    stored = record.obj
    unchanged: dict[str, bytes] = {}
    changed: dict[str, Any] = {}
    for key, value in body.items():
        if key in flat:
            changed[key] = value
            continue
        if type(value) in (dict, list):
            text = _stored_field_text(record, key, value)
            if text is not None:
                unchanged[key] = text
                continue
        changed[key] = value
    entries = stored_entries(stored)
    if entries is not None and "metadata" in changed and body_sends_stored(changed["metadata"], entries):
        changed["metadata"] = with_placeholder(changed)["metadata"]
        return changed, unchanged, entries
    return changed, unchanged, None


def decode_patched_fields(rt: ResourceType, patched: dict[str, Any], touched: set[str] | None,
                          shown: Any, *, converter: bool = False) -> list[str]:
    """``decoding.decode_patched`` for a patch's result whose top-level fields other than ``touched`` are
    the stored object's (``None``: any field may have changed, decode it all)."""
    if touched is None:
        return decoding.decode_patched(rt, patched, shown, converter=converter)
    part = {key: value for key, value in patched.items() if key in touched}
    unknown = decoding.decode_patched(rt, part, shown, converter=converter)
    for key in touched:  # a whole float the converter took for an integer was set in the part
        if key in part:
            patched[key] = part[key]
    for key in touched:  # an unknown top-level field was dropped from the part, not from the result
        if key in patched and key not in part:
            del patched[key]
    for key, value in part.items():  # a field Go writes when absent (eventTime: null) was added to the part
        if key not in patched:
            patched[key] = value
    return unknown


def json_patch_fields(patch: Any) -> set[str] | None:
    """The top-level fields a JSON patch writes to (``None`` when that cannot be told: the whole document,
    an operation that is not an object or a path that is not a pointer)."""
    if not isinstance(patch, list):
        return None
    touched: set[str] = set()
    for op in patch:
        if not isinstance(op, dict):
            return None
        path = op.get("path")
        if not isinstance(path, str) or not path.startswith("/") or len(path) < 2:
            return None
        head = path[1:].split("/", 1)[0]
        touched.add(head.replace("~1", "/").replace("~0", "~"))
    return touched


_MISSING: Any = object()
