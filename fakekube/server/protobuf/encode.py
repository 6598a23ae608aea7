"""JSON (the store's objects) → protobuf bytes, the way the Go server would marshal the same object.

Fields are written in field-number order, as the generated Go code (gogo-protobuf's ``MarshalToSizedBuffer``)
writes them: a field Go holds by value — a string, number or bool, a struct — is written even when zero (a JSON
``null`` or an absent key is its zero: ``""``, ``0``, the zero struct's own fields; a zero ``metav1.Time``
writes an empty message), while a pointer, a slice, a map or ``[]byte`` writes nothing when nil or absent (Status
``metadata`` and ``details.group: ""`` of an error, observed on kube-apiserver v1.37.2; apimachinery v0.37.2
``pkg/apis/meta/v1/generated.pb.go``, ``time_proto.go``, ``pkg/api/resource/quantity_proto.go``). Map entries
are sorted by key. A value the
Go type cannot hold (a string where an int32 belongs, an int32 out of range, bad base64) is a ``CodecError``
naming its JSON path.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from json.encoder import c_make_encoder as _c_make_encoder  # type: ignore[attr-defined]
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from fakekube.server.protobuf import values
from fakekube.server.protobuf.cache import EncodedObjects, identity
from fakekube.server.protobuf.envelope import length_delimited
from fakekube.server.protobuf.schema import Field, Message
from fakekube.server.protobuf.wire import CodecError, varint

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1), "uint32": (0, 2**32 - 1),
               "uint64": (0, 2**64 - 1), "sint32": (-(2**31), 2**31 - 1), "sint64": (-(2**63), 2**63 - 1)}


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), type(value).__name__)


class _PathError(CodecError):
    """A CodecError whose JSON path is completed while the error unwinds (no path strings on success)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path or '.'}: {self.reason}"


def encode_message(msg: Message, obj: Any, path: str = "") -> bytes:
    try:
        return _message(msg, obj)
    except _PathError as exc:
        exc.path = path + exc.path
        raise


def _message(msg: Message, obj: Any) -> bytes:
    if msg.special is not None:
        return _special(msg, obj)
    if msg.list_wrapper:
        obj = {"items": obj}
    if obj.__class__ is not dict:
        raise _PathError("", f"expected object, got {_type_name(obj)}")
    plan: _Plan = msg.encode_plan or _compile(msg)
    if plan.scan_fields or len(plan.steps) <= 2 * len(obj):
        get = obj.get
        present = [(step, obj if step[0] == _INLINE else get(step[1])) for step in plan.steps]
    else:
        by_name = plan.by_name
        present = [(step, v) for k, v in obj.items() if (step := by_name.get(k)) is not None]
        present += [(step, None) for step in plan.always if step[1] not in obj]
        present.sort(key=_number)
    parts: list[bytes] = []
    append = parts.append
    for step, value in present:
        if value is None:
            zero = step[5]
            if zero is not None:
                append(zero if zero.__class__ is bytes else _zero_field(step))
            continue
        kind = step[0]
        try:
            if kind == _STRING and value.__class__ is str:
                data = value.encode("utf-8", "surrogatepass")
                size = len(data)
                append(step[2] + (_SMALL[size] if size < 128 else varint(size)) + data)
            elif kind == _STRUCT:
                inner = _message(step[3], value)
                size = len(inner)
                append(step[2] + (_SMALL[size] if size < 128 else varint(size)) + inner)
            elif kind == _STRING_MAP and value.__class__ is dict:
                tag = step[2]
                for key in sorted(value):
                    item = value[key]
                    if key.__class__ is str and item.__class__ is str:
                        k = key.encode("utf-8", "surrogatepass")
                        v = item.encode("utf-8", "surrogatepass")
                        k_size = varint(len(k))
                        v_size = varint(len(v))
                        size = 2 + len(k_size) + len(k) + len(v_size) + len(v)
                        append(b"".join((tag, varint(size), b"\x0a", k_size, k, b"\x12", v_size, v)))
                    else:
                        append(_map_field(step[4], key, item))
            elif kind == _STRUCTS and value.__class__ is list:
                sub = step[3]
                tag = step[2]
                for i, item in enumerate(value):
                    try:
                        inner = _message(sub, item) if item is not None else b""
                    except _PathError as exc:
                        exc.path = f"[{i}]{exc.path}"
                        raise
                    append(tag + varint(len(inner)) + inner)
            else:
                _field_into(step[4], value, append)
        except _PathError as exc:
            exc.path = f".{step[1]}{exc.path}"
            raise
    return b"".join(parts)


def _field_into(f: Field, value: Any, append: Any) -> None:
    """The general path: one present field of any kind (the plan's fast cases are handled by the caller)."""
    if f.message is None and f.map_key is None and not f.repeated:
        append(f.tag + scalar(f.type, value, ""))
    elif f.inline:
        inner = _message(f.message, value)  # type: ignore[arg-type]
        append(f.tag + varint(len(inner)) + inner)
    elif f.map_key is not None:
        if value.__class__ is not dict:
            raise _PathError("", f"expected object, got {_type_name(value)}")
        for key in sorted(value):
            append(_map_field(f, key, value[key]))
    elif f.repeated:
        if value.__class__ is not list:
            raise _PathError("", f"expected array, got {_type_name(value)}")
        for i, item in enumerate(value):
            try:
                if item is None and f.message is None:
                    raise _PathError("", f"expected {f.type}, got null")
                append(_field(f, item))
            except _PathError as exc:
                exc.path = f"[{i}]{exc.path}"
                raise
    else:
        append(_field(f, value))


def _map_field(f: Field, key: Any, value: Any) -> bytes:
    try:
        entry = _map_entry(f, key, value)
    except _PathError as exc:
        exc.path = f".{key}{exc.path}"
        raise
    return f.tag + varint(len(entry)) + entry


# The encoder's plan: per field (kind, JSON name, tag bytes, value message, Field, zero), in field-number
# order; zero is what an absent or null field writes: None for nothing, the bytes, or _LATER for a struct's
# (made on first use from the struct's own plan: compiling a plan never compiles another).
_STRING, _STRING_MAP, _STRUCT, _STRUCTS, _INLINE, _GENERIC = range(6)
_SMALL = [bytes((i,)) for i in range(128)]
_LATER = object()
# The zero value of a type that marshals itself (after the field's tag): a zero Time writes no bytes, a
# Duration its 0, a Quantity "0", an IntOrString all three of its fields, a RawExtension or FieldsV1 nothing.
_SPECIAL_ZERO = {"time": b"\x00", "microtime": b"\x00", "duration": b"\x02\x08\x00", "quantity": b"\x03\x0a\x010",
                 "intorstring": b"\x06\x08\x00\x10\x00\x1a\x00", "rawextension": b"\x00", "fieldsv1": b"\x00"}
_FIXED_ZERO = {"double": 8, "fixed64": 8, "sfixed64": 8, "float": 4, "fixed32": 4, "sfixed32": 4}


def _zero_of(f: Field) -> Any:
    """What a field Go holds by value writes at its zero (None: a pointer, slice, map or []byte writes nothing)."""
    if f.pointer or f.repeated or f.map_key is not None or f.inline or f.type == "bytes":
        return None
    sub = f.message
    if sub is None:
        return f.tag + bytes(_FIXED_ZERO.get(f.type, 1))
    if sub.list_wrapper:
        return None
    if sub.special is not None:
        return f.tag + _SPECIAL_ZERO[sub.special]
    return _LATER


def _zero_field(step: tuple[Any, ...]) -> bytes:
    """A zero struct held by value: its tag and its own zero fields (made once per message)."""
    sub: Message = step[3]
    plan: _Plan = sub.encode_plan or _compile(sub)
    inner = plan.zero
    if inner is None:
        inner = plan.zero = _message(sub, {})
    return step[2] + varint(len(inner)) + inner


class _Plan:
    __slots__ = ("steps", "by_name", "scan_fields", "items", "always", "zero")

    def __init__(self, steps: list[tuple[Any, ...]], scan_fields: bool) -> None:
        self.steps = steps
        self.always = [step for step in steps if step[5] is not None and step[0] != _INLINE]
        self.zero: bytes | None = None  # the message's own bytes at its zero value, once made
        self.by_name = {step[1]: step for step in steps}
        self.scan_fields = scan_fields  # an inline struct takes its fields from the whole object
        # A list kind's repeated ``items``, when it is the last field (so its bytes come last)
        last = max(steps, key=lambda step: step[4].number, default=None)
        self.items = last if last is not None and last[1] == "items" and last[0] == _STRUCTS else None


def _compile(msg: Message) -> _Plan:
    steps = []
    for f in msg.fields:
        sub = f.message
        if f.inline:
            kind = _INLINE
        elif f.map_key is not None:
            kind = _STRING_MAP if f.string_map else _GENERIC
        elif sub is None:
            kind = _STRING if f.type == "string" and not f.repeated else _GENERIC
        elif sub.special is not None or sub.list_wrapper:
            kind = _GENERIC
        else:
            kind = _STRUCTS if f.repeated else _STRUCT
        steps.append((kind, f.name, f.tag, sub, f, _zero_of(f)))
    plan = msg.encode_plan = _Plan(steps, msg.has_inline)
    return plan


def encode_stored(msg: Message, obj: Any, cache: EncodedObjects) -> bytes:
    """``encode_message``'s bytes for an object as the store returned it, or a list of them: an object's
    message is taken from ``cache`` when its uid and resourceVersion are there, and put there otherwise."""
    return _stored(msg, obj, cache)


def _stored(msg: Message, obj: Any, cache: EncodedObjects) -> bytes:
    key = identity(msg.name, obj)
    if key is not None:
        raw = cache.get(key)
        if raw is None:
            raw = _message(msg, obj)
            cache.put(key, raw)
        return raw
    plan: _Plan = msg.encode_plan or _compile(msg)
    items = obj.get("items") if obj.__class__ is dict else None
    if plan.items is None or items.__class__ is not list:
        return _message(msg, obj)
    # items is the last field: the other fields' bytes, then each item's
    parts = [_message(msg, {k: v for k, v in obj.items() if k != "items"})]
    _, name, tag, sub, _, _ = plan.items
    for i, item in enumerate(items):
        try:
            inner = _stored(sub, item, cache) if item is not None else b""
        except _PathError as exc:
            exc.path = f".{name}[{i}]{exc.path}"
            raise
        parts.append(tag + varint(len(inner)) + inner)
    return b"".join(parts)


def _number(item: tuple[tuple[Any, ...], Any]) -> int:
    return item[0][4].number


def _field(f: Field, value: Any) -> bytes:
    if f.message is not None:
        if value is None:
            return f.tag + b"\x00"
        inner = _message(f.message, value)
        return f.tag + varint(len(inner)) + inner
    return f.tag + scalar(f.type, value, "")


def _map_entry(f: Field, key: str, value: Any) -> bytes:
    if f.map_key == "string":
        key_bytes = b"\x0a" + scalar("string", key, "")
    else:
        try:
            key_bytes = b"\x08" + scalar(f.map_key or "int64", int(key), "")
        except ValueError:
            raise _PathError("", f"map key {key!r} is not a number") from None
    if f.message is not None:
        inner = _message(f.message, value) if value is not None else b""
        return key_bytes + b"\x12" + varint(len(inner)) + inner
    if f.type in ("string", "bytes"):
        return key_bytes + b"\x12" + scalar(f.type, value, "")
    return key_bytes + b"\x10" + scalar(f.type, value, "")


def scalar(typ: str, value: Any, path: str) -> bytes:
    """The wire bytes of one scalar (after its tag)."""
    if typ == "string":
        if not isinstance(value, str):
            raise _PathError(path, f"expected string, got {_type_name(value)}")
        data = value.encode("utf-8", "surrogatepass")
        return varint(len(data)) + data
    if typ == "bool":
        if not isinstance(value, bool):
            raise _PathError(path, f"expected boolean, got {_type_name(value)}")
        return b"\x01" if value else b"\x00"
    if typ == "bytes":
        if not isinstance(value, str):
            raise _PathError(path, f"expected base64 string, got {_type_name(value)}")
        try:
            data = base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            raise _PathError(path, "illegal base64 data") from None
        return varint(len(data)) + data
    if typ in ("double", "float", "fixed64", "sfixed64", "fixed32", "sfixed32"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _PathError(path, f"expected number, got {_type_name(value)}")
        fmt = {"double": "<d", "float": "<f", "fixed64": "<Q", "sfixed64": "<q", "fixed32": "<I", "sfixed32": "<i"}
        try:
            return struct.pack(fmt[typ], value if typ in ("double", "float") else int(value))
        except (struct.error, OverflowError):
            raise _PathError(path, f"number out of range for {typ}") from None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _PathError(path, f"expected integer, got {_type_name(value)}")
    low, high = _INT_RANGES.get(typ, (-(2**63), 2**64 - 1))
    if not low <= value <= high:
        raise _PathError(path, f"{value} is out of range for {typ}")
    if typ in ("sint32", "sint64"):
        value = (value << 1) ^ (value >> 63)
    return varint(value)


_TIMES: dict[tuple[str, str], bytes] = {}


def _special(msg: Message, value: Any) -> bytes:
    kind = msg.special
    if kind in ("time", "microtime"):
        cached = _TIMES.get((kind, value)) if value.__class__ is str else None
        if cached is None:
            seconds, nanos = _checked(values.parse_time, value)
            cached = b"\x08" + varint(seconds) + b"\x10" + varint(nanos)
            if len(_TIMES) > 8192:
                _TIMES.clear()
            _TIMES[(kind, value)] = cached
        return cached
    if kind == "duration":
        return b"\x08" + varint(_checked(values.parse_duration, value))
    if kind == "quantity":
        text = _checked(values.quantity_of, value).encode()
        return b"\x0a" + varint(len(text)) + text
    if kind == "intorstring":
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise _PathError("", f"expected integer or string, got {_type_name(value)}")
        if isinstance(value, int):
            return b"\x08\x00\x10" + scalar("int32", value, "") + b"\x1a\x00"
        return b"\x08\x01\x10\x00" + length_delimited(b"\x1a", value.encode("utf-8", "surrogatepass"))
    # rawextension, fieldsv1: the JSON they hold
    raw = _json_text(value).encode("utf-8", "surrogatepass")
    return b"\x0a" + varint(len(raw)) + raw


def _json_text(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False)`` without building a JSONEncoder each time."""
    if _c_make_encoder is None:  # pragma: no cover - CPython always has the C accelerator
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    # A fresh markers dict per call keeps json.dumps's circular-reference check as it is.
    encode = _c_make_encoder({}, _DEFAULT.default, encode_basestring, None, ":", ",", False, False, True)
    return "".join(encode(value, 0))


_DEFAULT = json.JSONEncoder()


def _checked(parse: Any, value: Any) -> Any:
    try:
        return parse(value)
    except CodecError as exc:
        raise _PathError("", str(exc)) from None
