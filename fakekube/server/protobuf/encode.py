"""JSON (the store's objects) → protobuf bytes, the way the Go server would marshal the same object.

Fields are written in field-number order; a JSON ``null`` or an absent key writes nothing (a Go client reads
the zero value either way); map entries are sorted by key, as the generated Go code writes them. A value the
Go type cannot hold (a string where an int32 belongs, an int32 out of range, bad base64) is a ``CodecError``
naming its JSON path.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from typing import Any

from fakekube.server.protobuf import values
from fakekube.server.protobuf.envelope import length_delimited
from fakekube.server.protobuf.schema import Field, Message
from fakekube.server.protobuf.wire import CodecError, varint

_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1), "uint32": (0, 2**32 - 1),
               "uint64": (0, 2**64 - 1), "sint32": (-(2**31), 2**31 - 1), "sint64": (-(2**63), 2**63 - 1)}


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), type(value).__name__)


def encode_message(msg: Message, obj: Any, path: str = "") -> bytes:
    if msg.special is not None:
        return _special(msg, obj, path)
    if msg.list_wrapper:
        obj = {"items": obj}
    if not isinstance(obj, dict):
        raise CodecError(f"{path or '.'}: expected object, got {_type_name(obj)}")
    if msg.has_inline:
        present = [(f, obj if f.inline else obj.get(f.name)) for f in msg.fields]
    else:
        by_name = msg.by_name
        present = [(f, v) for k, v in obj.items() if (f := by_name.get(k)) is not None]
        present.sort(key=lambda item: item[0].number)
    parts = []
    for f, value in present:
        if value is None:
            continue
        if f.inline:
            assert f.message is not None
            inner = encode_message(f.message, value, path)
            parts.append(length_delimited(f.tag, inner))
            continue
        where = f"{path}.{f.name}"
        if f.map_key is not None:
            if not isinstance(value, dict):
                raise CodecError(f"{where}: expected object, got {_type_name(value)}")
            for key in sorted(value):
                parts.append(length_delimited(f.tag, _map_entry(f, key, value[key], f"{where}.{key}")))
        elif f.repeated:
            if not isinstance(value, list):
                raise CodecError(f"{where}: expected array, got {_type_name(value)}")
            for i, item in enumerate(value):
                if item is None and f.message is None:
                    raise CodecError(f"{where}[{i}]: expected {f.type}, got null")
                parts.append(_field(f, item, f"{where}[{i}]"))
        else:
            parts.append(_field(f, value, where))
    return b"".join(parts)


def _field(f: Field, value: Any, path: str) -> bytes:
    if f.message is not None:
        if value is None:
            return length_delimited(f.tag, b"")
        return length_delimited(f.tag, encode_message(f.message, value, path))
    return f.tag + scalar(f.type, value, path)


def _map_entry(f: Field, key: str, value: Any, path: str) -> bytes:
    key_bytes = b"\x0a" + scalar(f.map_key or "string", key, path) if f.map_key == "string" else \
        b"\x08" + scalar(f.map_key or "int64", int(key), path)
    if f.message is not None:
        inner = encode_message(f.message, value, path) if value is not None else b""
        return key_bytes + length_delimited(b"\x12", inner)
    return key_bytes + b"\x12" + scalar(f.type, value, path) if f.type in ("string", "bytes") else \
        key_bytes + b"\x10" + scalar(f.type, value, path)


def scalar(typ: str, value: Any, path: str) -> bytes:
    """The wire bytes of one scalar (after its tag)."""
    if typ == "string":
        if not isinstance(value, str):
            raise CodecError(f"{path}: expected string, got {_type_name(value)}")
        data = value.encode("utf-8", "surrogatepass")
        return varint(len(data)) + data
    if typ == "bool":
        if not isinstance(value, bool):
            raise CodecError(f"{path}: expected boolean, got {_type_name(value)}")
        return b"\x01" if value else b"\x00"
    if typ == "bytes":
        if not isinstance(value, str):
            raise CodecError(f"{path}: expected base64 string, got {_type_name(value)}")
        try:
            data = base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
        except (binascii.Error, ValueError):
            raise CodecError(f"{path}: illegal base64 data") from None
        return varint(len(data)) + data
    if typ in ("double", "float", "fixed64", "sfixed64", "fixed32", "sfixed32"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CodecError(f"{path}: expected number, got {_type_name(value)}")
        fmt = {"double": "<d", "float": "<f", "fixed64": "<Q", "sfixed64": "<q", "fixed32": "<I", "sfixed32": "<i"}
        try:
            return struct.pack(fmt[typ], value if typ in ("double", "float") else int(value))
        except (struct.error, OverflowError):
            raise CodecError(f"{path}: number out of range for {typ}") from None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CodecError(f"{path}: expected integer, got {_type_name(value)}")
    low, high = _INT_RANGES.get(typ, (-(2**63), 2**64 - 1))
    if not low <= value <= high:
        raise CodecError(f"{path}: {value} is out of range for {typ}")
    if typ in ("sint32", "sint64"):
        value = (value << 1) ^ (value >> 63)
    return varint(value)


def _special(msg: Message, value: Any, path: str) -> bytes:
    kind = msg.special
    if kind in ("time", "microtime"):
        seconds, nanos = _checked(values.parse_time, value, path)
        return b"\x08" + varint(seconds) + b"\x10" + varint(nanos)
    if kind == "duration":
        return b"\x08" + varint(_checked(values.parse_duration, value, path))
    if kind == "quantity":
        text = _checked(values.quantity_of, value, path)
        return length_delimited(b"\x0a", text.encode())
    if kind == "intorstring":
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise CodecError(f"{path}: expected integer or string, got {_type_name(value)}")
        if isinstance(value, int):
            return b"\x08\x00\x10" + scalar("int32", value, path) + b"\x1a\x00"
        return b"\x08\x01\x10\x00" + length_delimited(b"\x1a", value.encode("utf-8", "surrogatepass"))
    # rawextension, fieldsv1: the JSON they hold
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
    return length_delimited(b"\x0a", raw)


def _checked(parse: Any, value: Any, path: str) -> Any:
    try:
        return parse(value)
    except CodecError as exc:
        raise CodecError(f"{path}: {exc}") from None
