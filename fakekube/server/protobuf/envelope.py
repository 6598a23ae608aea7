"""The ``application/vnd.kubernetes.protobuf`` envelope: the magic ``k8s\\x00`` then a ``runtime.Unknown``.

``Unknown`` is ``{1: TypeMeta{1: apiVersion, 2: kind}, 2: raw (the object's message), 3: contentEncoding,
4: contentType}``; the object's own message carries no TypeMeta. Watch events are ``meta.v1.WatchEvent``
messages without the magic (the stream serializer is the raw one), each framed by a 4-byte big-endian length,
whose ``object`` RawExtension holds an enveloped object. Source: kubernetes/apimachinery
pkg/runtime/serializer/protobuf/protobuf.go, pkg/runtime/types_proto.go and pkg/util/framer/framer.go (v0.36.3).
"""

from __future__ import annotations

from fakekube.server.protobuf.wire import LENGTH, CodecError, read_length, read_varint, skip, varint

MAGIC = b"k8s\x00"


def unwrap(data: bytes) -> tuple[str, str, bytes]:
    """(apiVersion, kind, raw) of an enveloped body; a CodecError with the serializer's message otherwise."""
    if not data:
        raise CodecError("empty data")
    if not data.startswith(MAGIC):
        prefix = " ".join(str(b) for b in MAGIC)
        raise CodecError(f"provided data does not appear to be a protobuf message, expected prefix [{prefix}]")
    if len(data) == len(MAGIC):
        raise CodecError("empty body")
    api_version = kind = ""
    raw = b""
    pos, end = len(MAGIC), len(data)
    while pos < end:
        tag, pos = read_varint(data, pos, end)
        number, wire = tag >> 3, tag & 7
        if number in (1, 2, 3, 4) and wire != LENGTH:
            raise CodecError(f"proto: wrong wireType = {wire} for field {('TypeMeta', 'Raw', 'ContentEncoding', 'ContentType')[number - 1]}")
        if number == 1:
            start, pos = read_length(data, pos, end)
            api_version, kind = _type_meta(data, start, pos)
        elif number == 2:
            start, pos = read_length(data, pos, end)
            raw = bytes(data[start:pos])
        elif number in (3, 4):
            pos = read_length(data, pos, end)[1]
        else:
            pos = skip(data, pos, end, wire)
    return api_version, kind, raw


def _type_meta(data: bytes, pos: int, end: int) -> tuple[str, str]:
    found = ["", ""]
    while pos < end:
        tag, pos = read_varint(data, pos, end)
        number, wire = tag >> 3, tag & 7
        if number in (1, 2):
            if wire != LENGTH:
                raise CodecError(f"proto: wrong wireType = {wire} for field {('APIVersion', 'Kind')[number - 1]}")
            start, pos = read_length(data, pos, end)
            found[number - 1] = data[start:pos].decode("utf-8", "replace")
        else:
            pos = skip(data, pos, end, wire)
    return found[0], found[1]


def length_delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + varint(len(payload)) + payload


def wrap(api_version: str, kind: str, raw: bytes) -> bytes:
    """The enveloped body; contentEncoding and contentType are written empty, as Go writes them."""
    type_meta = length_delimited(b"\x0a", api_version.encode()) + length_delimited(b"\x12", kind.encode())
    return MAGIC + length_delimited(b"\x0a", type_meta) + length_delimited(b"\x12", raw) + b"\x1a\x00\x22\x00"


def frame(payload: bytes) -> bytes:
    """One frame of a protobuf watch stream: a 4-byte big-endian length, then the WatchEvent."""
    return len(payload).to_bytes(4, "big") + payload


def read_frames(data: bytes) -> list[bytes]:
    """The frames of a complete watch stream body (for clients and tests)."""
    frames = []
    pos = 0
    while pos < len(data):
        if pos + 4 > len(data):
            raise CodecError("unexpected EOF")
        length = int.from_bytes(data[pos:pos + 4], "big")
        pos += 4
        if pos + length > len(data):
            raise CodecError("unexpected EOF")
        frames.append(data[pos:pos + length])
        pos += length
    return frames
