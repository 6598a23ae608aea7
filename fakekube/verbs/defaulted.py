"""A create's defaulted fields (a Pod's ``spec``), decoded and defaulted once per distinct value.

Objects of a kind are often made from one template — a workload's pods repeat their template's spec — and
what a create makes of such a field depends on nothing but its value: the typed decoder is a pure walk, and a
strategy that declares ``defaulted_fields`` says its ``default`` reads and writes those fields alone. So a
create remembers, by the fields' JSON text (from the second time it sees it), the bytes of what decoding then defaulting made of them; a body
sending the same values again gets a fresh copy of those bytes (one C decode) instead of the two Python
walks. The rest of the body is decoded as before, with an empty object standing in for each remembered
field (same key, same place, so key order is unchanged).

Only a clean decode is remembered and used: fields with an unknown field or a value of the wrong type take
the full path, which reports them exactly as before. A clean field adds no warning and no error, so the rest
of the body reports the same findings in the same order. A hit needs an equal value as well as the same
text, because the text alone does not tell a tuple from a list (or a UUID from its string), which the decoder
treats differently.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fakekube.apimodel.decoder import DecodeError, Decoder, decoder
from fakekube.apimodel.definitions import Definitions, definitions
from fakekube.apimodel.model import BuiltinModel
from fakekube.jsonvalues import decode_json_bytes, encode_json, json_copy
from fakekube.resources import ResourceType

# (model, strategy class, JSON text of the fields' values) -> (an owned copy of those values, the bytes of
# what decoding and defaulting made of them). Bounded like fieldpath's remembered FieldsV1 subtrees: the
# templates of a run, not every object (at most ~32 MB).
_REMEMBERED: dict[tuple[Any, type, bytes], tuple[list[Any], bytes]] = {}
_MAX_REMEMBERED = 1_000
_SEEN_ONCE: tuple[list[Any], bytes] = ([], b"")  # a key's first sighting (compared by identity)
_MAX_TEXT = 16_384
_TYPE_META = ("apiVersion", "kind", "metadata")


def decoded_defaulted(rt: ResourceType, body: Any) -> dict[str, Any] | None:
    """The store's own decoded and defaulted copies of the values of ``rt``'s defaulted fields in ``body``
    (a create's body), or None when they cannot be had this way: the create then decodes and defaults the
    whole body."""
    strategy = rt.strategy
    fields = strategy.defaulted_fields
    model = rt.model
    if not fields or model is None or rt.to_storage is not None or type(body) is not dict:
        return None
    values = []
    for field in fields:
        value = body.get(field)
        if type(value) is not dict or field in _TYPE_META:
            return None
        values.append(value)
    text = encode_json(values)
    if text is None or len(text) > _MAX_TEXT:
        return None
    key = (model, type(strategy), text)
    known = _REMEMBERED.get(key)
    if known is None:
        # A value seen once is only noted: remembering costs two encodes and a copy, which a body that never
        # comes back (every spec distinct) would pay on every create for nothing.
        if len(_REMEMBERED) >= _MAX_REMEMBERED:
            _REMEMBERED.clear()
        _REMEMBERED[key] = _SEEN_ONCE
        return None
    if known is not _SEEN_ONCE and known[0] == values:
        return dict(zip(fields, decode_json_bytes(known[1]), strict=True))
    decoders = _field_decoders(model, fields)
    if decoders is None:
        return None
    holder: dict[str, Any] = {}
    for field, field_decoder, value in zip(fields, decoders, values, strict=True):
        try:
            decoded = field_decoder.copy(value)
        except DecodeError:
            return None
        if decoded.locations:
            return None
        holder[field] = decoded.value
    try:
        strategy.default(holder)
    except Exception:  # noqa: BLE001 - whatever it is, the full path raises it where it belongs
        return None
    results = [holder.get(field) for field in fields]
    data = encode_json(results)
    if data is None or any(type(result) is not dict for result in results):
        return None
    if len(_REMEMBERED) >= _MAX_REMEMBERED:
        _REMEMBERED.clear()
    _REMEMBERED[key] = (json_copy(values), data)
    return holder


def with_placeholders(body: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """A shallow view of ``body`` with an empty object in place of each of ``fields``."""
    return {key: ({} if key in fields else value) for key, value in body.items()}


@cache
def _field_decoders(model: BuiltinModel, fields: tuple[str, ...]) -> tuple[Decoder, ...] | None:
    """The typed decoder of each field's definition (the decoder of the whole kind uses the same ones)."""
    defs = definitions(model.kubernetes_version)
    props = defs[model.definition].get("properties") if model.definition in defs else None
    if not isinstance(props, dict):
        return None
    names = [Definitions.ref_name(props.get(field) or {}) for field in fields]
    if any(name is None for name in names):
        return None
    return tuple(decoder(model.kubernetes_version, name) for name in names if name is not None)
