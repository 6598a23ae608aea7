"""Protobuf bytes → the JSON the real server would store: what Go's encoding/json makes of the decoded struct.

The wire carries every non-pointer field a Go client has (gogo-protobuf writes non-pointer scalars and
non-nullable messages even when zero or empty), so the JSON follows the Go struct tags kept in the table:

- a non-pointer ``omitempty`` scalar is dropped when zero (``generateName: ""`` never shows);
- a pointer shows whenever it is set, zero included (``replicas: 0``), and a non-pointer struct always shows,
  ``{}`` when empty (``spec: {}``, ``resources: {}``), a zero Time as ``null`` (``creationTimestamp: null``);
- absent fields read as their Go zero value: non-``omitempty`` scalars as zero, non-``omitempty`` slices, maps
  and pointers as ``null`` (``rules: null``), non-pointer structs rendered empty;
- ``bytes`` become base64 strings, RawExtension and FieldsV1 the JSON they carry, Quantity and IntOrString
  their JSON forms, embedded ``inline`` structs are merged into their parent.

Unknown field numbers are skipped (as the generated Go code does); every malformed input is a ``CodecError``
with the generated code's message, never an exception of another type.
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

from fakekube.server.protobuf import values
from fakekube.server.protobuf.schema import Field, Message, Schema
from fakekube.server.protobuf.wire import (
    FIXED32,
    FIXED64,
    LENGTH,
    VARINT,
    CodecError,
    read_length,
    read_varint,
    signed,
    skip,
)

MAGIC = b"k8s\x00"
_scan = json.JSONDecoder().scan_once  # what json.loads runs, without its whitespace and trailing-data checks
_MAX_DEPTH = 100
_MISSING = object()
_IMMUTABLE = frozenset({"time", "microtime", "duration", "quantity", "intorstring"})


def go_name(f: Field) -> str:
    return f.name[:1].upper() + f.name[1:]


class Decoder:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._values: dict[tuple[str, bytes], Any] = {}  # decoded Times, Quantities... by their bytes

    # -- envelope -----------------------------------------------------------------------------------------

    def decode_object(self, raw: bytes, message: Message, api_version: str, kind: str) -> dict[str, Any]:
        """One top-level object from its message bytes; TypeMeta comes from the envelope."""
        out: dict[str, Any] = {"kind": kind, "apiVersion": api_version}
        self.message_into(message, raw, 0, len(raw), out, 0)
        return out

    # -- messages -----------------------------------------------------------------------------------------

    def message(self, msg: Message, data: bytes, pos: int, end: int, depth: int = 0) -> Any:
        """The JSON value of a message occupying data[pos:end]."""
        special = msg.special
        if special is not None:
            if special in _IMMUTABLE:  # strings and numbers: the same bytes give the same value
                key = (special, data[pos:end])
                value = self._values.get(key, _MISSING)
                if value is _MISSING:
                    value = self._special(msg, data, pos, end, depth)
                    if len(self._values) > 8192:
                        self._values.clear()
                    self._values[key] = value
                return value
            return self._special(msg, data, pos, end, depth)
        out: dict[str, Any] = {}
        self.message_into(msg, data, pos, end, out, depth)
        if msg.list_wrapper:
            return out.get("items")
        return out

    def message_into(self, msg: Message, data: bytes, pos: int, end: int, out: dict[str, Any], depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise CodecError("proto: message nested too deeply")
        plan: _Plan = msg.decode_plan or _compile(msg)
        by_tag = plan.by_tag
        while pos < end:
            tag = data[pos]
            if tag < 0x80:
                pos += 1
            else:
                tag, pos = read_varint(data, pos, end)
            step = by_tag.get(tag)
            if step is None:  # unknown, mismatched wire type, or packed: the general path
                pos = self._unplanned(msg, tag, data, pos, end, out, depth)
                continue
            kind = step[0]
            if kind >= _GENERIC:
                pos = self._field(step[1], data, pos, end, out, depth)
                continue
            # a length-delimited value: data[start:pos]
            if pos >= end:
                raise CodecError("unexpected EOF")
            start = data[pos]
            if start < 0x80:
                pos += 1
                start, pos = pos, pos + start
                if pos > end:
                    raise CodecError("unexpected EOF")
            else:
                start, pos = read_length(data, pos, end)
            if kind == _STRING:
                value = data[start:pos].decode("utf-8", "replace")
                if step[2] and not value:
                    out.pop(step[1], None)
                else:
                    out[step[1]] = value
            elif kind == _STRING_MAP:
                key, value = _string_entry(data, start, pos)
                entries = out.get(step[1])
                if entries is None:
                    entries = out[step[1]] = {}
                entries[key] = value
            elif kind == _STRUCT:
                previous = out.get(step[1])
                if previous.__class__ is dict:
                    self.message_into(step[2], data, start, pos, previous, depth + 1)  # proto merges repeats
                else:
                    value = {}
                    self.message_into(step[2], data, start, pos, value, depth + 1)
                    out[step[1]] = value
            elif kind == _STRUCTS:
                value = {}
                self.message_into(step[2], data, start, pos, value, depth + 1)
                items = out.get(step[1])
                if items is None:
                    out[step[1]] = [value]
                else:
                    items.append(value)
            elif kind == _VALUE:
                out[step[1]] = self.message(step[2], data, start, pos, depth + 1)
            elif kind == _JSON:  # FieldsV1, RawExtension: usually one field 1 holding JSON text
                text = _json_text(data, start, pos)
                if text is not None:
                    out[step[1]] = self._embedded(text, depth + 1)
                else:
                    out[step[1]] = self.message(step[2], data, start, pos, depth + 1)
            else:  # _STRINGS
                value = data[start:pos].decode("utf-8", "replace")
                items = out.get(step[1])
                if items is None:
                    out[step[1]] = [value]
                else:
                    items.append(value)
        if plan.defaults:
            self._fill_defaults(msg, out, depth)

    def _unplanned(self, msg: Message, tag: int, data: bytes, pos: int, end: int, out: dict[str, Any],
                   depth: int) -> int:
        """A tag the plan does not have: an unknown field (skipped), a packed repeated number, or an error."""
        number = tag >> 3
        wire = tag & 7
        f = msg.by_number.get(number)
        if f is None:
            if number == 0:
                raise CodecError(f"proto: {msg.name.rpartition('.')[2]}: illegal tag 0 (wire type {wire})")
            return skip(data, pos, end, wire)
        if wire == LENGTH and f.packable:
            start, pos = read_length(data, pos, end)
            items = out.setdefault(f.name, [])
            while start < pos:
                value, start = self._scalar(f, data, start, pos)
                items.append(value)
            return pos
        raise CodecError(f"proto: wrong wireType = {wire} for field {go_name(f)}")

    def _field(self, f: Field, data: bytes, pos: int, end: int, out: dict[str, Any], depth: int) -> int:
        """One field of the kinds the plan leaves to the general code (numbers, bytes, maps, inline structs)."""
        if f.wire == LENGTH:
            start, pos = read_length(data, pos, end)
            sub = f.message
            if f.map_key is not None:
                key, value = self._map_entry(f, data, start, pos, depth)
                entries = out.get(f.name)
                if entries is None:
                    entries = out[f.name] = {}
                entries[key] = value
                return pos
            if sub is None:  # bytes: JSON shows []byte as base64
                value = base64.b64encode(data[start:pos]).decode("ascii")
            elif f.inline:
                self.message_into(sub, data, start, pos, out, depth + 1)
                return pos
            else:  # a repeated self-marshalling type or named slice
                items = out.get(f.name)
                if items is None:
                    items = out[f.name] = []
                items.append(self.message(sub, data, start, pos, depth + 1))
                return pos
        else:
            value, pos = self._scalar(f, data, pos, end)
        if f.repeated:
            out.setdefault(f.name, []).append(value)
        elif f.omit_zero and not value:
            out.pop(f.name, None)
        else:
            out[f.name] = value
        return pos

    def _scalar(self, f: Field, data: bytes, pos: int, end: int) -> tuple[Any, int]:
        wire = f.wire
        if wire == VARINT:
            b = data[pos] if pos < end else 0x80
            if b < 0x80 and pos < end:
                raw, pos = b, pos + 1
            else:
                raw, pos = read_varint(data, pos, end)
            typ = f.type
            if typ == "bool":
                return raw != 0, pos
            if typ == "int32":
                return signed(raw, 32), pos
            if typ == "int64":
                return signed(raw, 64), pos
            if typ == "uint32":
                return raw & 0xFFFFFFFF, pos
            if typ in ("sint32", "sint64"):
                return (raw >> 1) ^ -(raw & 1), pos
            return raw, pos
        if wire == FIXED64:
            if pos + 8 > end:
                raise CodecError("unexpected EOF")
            fmt = {"double": "<d", "sfixed64": "<q"}.get(f.type, "<Q")
            return struct.unpack_from(fmt, data, pos)[0], pos + 8
        if wire == FIXED32:
            if pos + 4 > end:
                raise CodecError("unexpected EOF")
            fmt = {"float": "<f", "sfixed32": "<i"}.get(f.type, "<I")
            return struct.unpack_from(fmt, data, pos)[0], pos + 4
        raise CodecError(f"proto: wrong wireType = {wire} for field {go_name(f)}")  # pragma: no cover

    def _map_entry(self, f: Field, data: bytes, pos: int, end: int, depth: int) -> tuple[str, Any]:
        key: Any = _MISSING
        value: Any = _MISSING
        while pos < end:
            tag, pos = read_varint(data, pos, end)
            number, wire = tag >> 3, tag & 7
            if number == 1 and wire == LENGTH and f.map_key == "string":
                start, pos = read_length(data, pos, end)
                key = data[start:pos].decode("utf-8", "replace")
            elif number == 1 and wire == VARINT and f.map_key != "string":
                key, pos = read_varint(data, pos, end)
                key = str(key)
            elif number == 2 and wire == LENGTH and (f.message is not None or f.type in ("string", "bytes")):
                start, pos = read_length(data, pos, end)
                if f.message is not None:
                    value = self.message(f.message, data, start, pos, depth + 1)
                elif f.type == "string":
                    value = data[start:pos].decode("utf-8", "replace")
                else:
                    value = base64.b64encode(data[start:pos]).decode("ascii")
            elif number in (1, 2):
                raise CodecError(f"proto: wrong wireType = {wire} for field {go_name(f)}")
            else:
                pos = skip(data, pos, end, wire)
        if key is _MISSING:
            key = ""
        if value is _MISSING:
            value = self._zero(f, depth) if f.message is not None else ("" if f.type in ("string", "bytes") else 0)
        return key, value

    # -- Go zero values -----------------------------------------------------------------------------------

    def _fill_defaults(self, msg: Message, out: dict[str, Any], depth: int) -> None:
        """The fields Go's JSON shows although the wire did not carry them (message_into's last step)."""
        plan: _Plan = msg.decode_plan or _compile(msg)
        for name, zero, sub in plan.defaults:
            if name is None:  # an embedded struct none of whose fields came: its own defaults
                if zero.isdisjoint(out):
                    self.message_into(sub, b"", 0, 0, out, depth + 1)
            elif name not in out:
                out[name] = zero if sub is None else self.message(sub, b"", 0, 0, depth + 1)

    def _zero(self, f: Field, depth: int) -> Any:
        """What encoding/json shows for a Go field left at its zero value (only asked when it shows)."""
        if f.repeated or f.map_key is not None or f.pointer:
            return None
        if f.message is not None:
            return self.message(f.message, b"", 0, 0, depth + 1)
        if f.type == "bytes":
            return None  # a nil []byte
        return values_zero(f.type)

    # -- self-marshalling types -----------------------------------------------------------------------------

    def _special(self, msg: Message, data: bytes, pos: int, end: int, depth: int) -> Any:
        kind = msg.special
        fields: dict[int, Any] = {}  # by field number
        self._plain_into(msg, data, pos, end, fields)
        if kind in ("time", "microtime"):
            if pos == end:
                return None
            return values.format_time(fields.get(1, 0), fields.get(2, 0), kind == "microtime")
        if kind == "duration":
            return values.format_duration(fields.get(1, 0))
        if kind == "quantity":
            return values.check_quantity(fields[1]) if 1 in fields else "0"
        if kind == "intorstring":
            typ = fields.get(1, 0)
            if typ == 0:
                return fields.get(2, 0)
            if typ == 1:
                return fields.get(3, "")
            raise CodecError("impossible IntOrString.Type")
        raw = fields.get(1)  # RawExtension.raw, FieldsV1.Raw
        if not raw:
            return None
        return self._embedded(raw, depth)

    def _embedded(self, raw: bytes, depth: int) -> Any:
        if raw.startswith(MAGIC):
            from fakekube.server.protobuf.envelope import unwrap  # envelope imports this module

            api_version, kind, body = unwrap(raw)
            message = self.schema.kind(api_version, kind)
            if message is None:
                raise CodecError(f'no kind "{kind}" is registered for version "{api_version}"')
            out: dict[str, Any] = {"kind": kind, "apiVersion": api_version}
            self.message_into(message, body, 0, len(body), out, depth + 1)
            return out
        if raw.startswith(b'{"'):  # UTF-8 for certain: the C scanner alone, json.loads below for any error
            try:
                text = raw.decode("utf-8", "surrogatepass")
                value, stop = _scan(text, 0)
                if stop == len(text):
                    return value
            except (ValueError, UnicodeDecodeError, StopIteration):
                pass
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CodecError(f"invalid character in embedded JSON: {exc}") from None

    def _plain_into(self, msg: Message, data: bytes, pos: int, end: int, out: dict[int, Any]) -> None:
        """The fields of a self-marshalling type as raw values (bytes stay bytes)."""
        while pos < end:
            tag, pos = read_varint(data, pos, end)
            number, wire = tag >> 3, tag & 7
            f = msg.by_number.get(number)
            if f is None:
                pos = skip(data, pos, end, wire)
                continue
            if wire != f.wire:
                raise CodecError(f"proto: wrong wireType = {wire} for field {go_name(f)}")
            if wire == LENGTH:
                start, pos = read_length(data, pos, end)
                chunk = data[start:pos]
                out[number] = chunk.decode("utf-8", "replace") if f.type == "string" else bytes(chunk)
            else:
                out[number], pos = self._scalar(f, data, pos, end)


# What message_into does with a planned tag; kinds below _GENERIC are length-delimited.
_STRING, _STRING_MAP, _STRUCT, _STRUCTS, _VALUE, _JSON, _STRINGS, _GENERIC = range(8)


class _Plan:
    """A message's decoding table, built once: what each expected tag means, and the defaults Go shows."""

    __slots__ = ("by_tag", "defaults")

    def __init__(self, by_tag: dict[int, tuple[Any, ...]], defaults: list[tuple[Any, Any, Message | None]]) -> None:
        self.by_tag = by_tag
        self.defaults = defaults


def _compile(msg: Message) -> _Plan:
    by_tag: dict[int, tuple[Any, ...]] = {}
    defaults: list[tuple[Any, Any, Message | None]] = []
    for f in msg.fields:
        tag = f.number << 3 | f.wire
        sub = f.message
        if f.map_key is not None:
            by_tag[tag] = (_STRING_MAP, f.name) if f.string_map else (_GENERIC, f)
        elif sub is None:
            if f.type == "string":
                by_tag[tag] = (_STRINGS, f.name) if f.repeated else (_STRING, f.name, f.omit_zero)
            else:
                by_tag[tag] = (_GENERIC, f)
        elif f.inline or (f.repeated and (sub.special is not None or sub.list_wrapper)):
            by_tag[tag] = (_GENERIC, f)
        elif f.repeated:
            by_tag[tag] = (_STRUCTS, f.name, sub)
        elif sub.special in ("fieldsv1", "rawextension"):
            by_tag[tag] = (_JSON, f.name, sub)
        elif sub.special is not None or sub.list_wrapper:
            by_tag[tag] = (_VALUE, f.name, sub)
        else:
            by_tag[tag] = (_STRUCT, f.name, sub)
        if not _has_default(f):
            continue
        if f.inline:
            if sub is not None:
                defaults.append((None, frozenset(g.name for g in sub.fields), sub))
        elif f.repeated or f.map_key is not None or f.pointer or f.type == "bytes":
            defaults.append((f.name, None, None))
        elif sub is not None:
            defaults.append((f.name, None, sub))
        else:
            defaults.append((f.name, values_zero(f.type), None))
    plan = msg.decode_plan = _Plan(by_tag, defaults)
    return plan


def _json_text(data: bytes, pos: int, end: int) -> bytes | None:
    """The JSON object text of a FieldsV1/RawExtension occupying data[pos:end] when it is exactly one field 1
    with a length of one or two bytes (what every writer makes); None for anything else."""
    if end - pos < 3 or data[pos] != 0x0A:
        return None
    length = data[pos + 1]
    start = pos + 2
    if length >= 0x80:
        high = data[start]
        if high >= 0x80:
            return None
        length = (length & 0x7F) | high << 7
        start += 1
    if start + length != end or data[start] != 0x7B:  # "{"
        return None
    return data[start:end]


def _string_entry(data: bytes, pos: int, end: int) -> tuple[str, str]:
    """A map<string, string> entry: ``0a <len> key 12 <len> value`` on the fast path, any order otherwise."""
    found = ["", ""]
    while pos < end:
        tag = data[pos]
        if tag not in (0x0A, 0x12):
            if tag & 7 == LENGTH and tag >> 3 in (1, 2):
                raise CodecError("proto: illegal map entry")  # pragma: no cover - multi-byte tags
            tag, pos = read_varint(data, pos, end)
            if tag >> 3 in (1, 2):
                raise CodecError(f"proto: wrong wireType = {tag & 7} for field {'Key' if tag >> 3 == 1 else 'Value'}")
            pos = skip(data, pos, end, tag & 7)
            continue
        pos += 1
        if pos >= end:
            raise CodecError("unexpected EOF")
        length = data[pos]
        if length < 0x80:
            start, pos = pos + 1, pos + 1 + length
            if pos > end:
                raise CodecError("unexpected EOF")
        else:
            start, pos = read_length(data, pos, end)
        found[(tag >> 3) - 1] = data[start:pos].decode("utf-8", "replace")
    return found[0], found[1]


def _has_default(f: Field) -> bool:
    """Whether an absent field still shows in Go's JSON (so the decoder must add it)."""
    if f.inline:
        return not f.pointer
    if f.repeated or f.map_key is not None or f.pointer:
        return not f.omit_empty  # nil shows as null unless omitempty
    if f.message is not None:
        return True  # a non-pointer struct always shows
    return not f.omit_empty


def values_zero(typ: str) -> Any:
    if typ == "string" or typ == "bytes":
        return ""
    if typ == "bool":
        return False
    if typ in ("double", "float"):
        return 0.0
    return 0
