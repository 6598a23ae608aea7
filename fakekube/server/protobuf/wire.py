"""Protocol buffer wire primitives: varints, tags, skipping unknown fields, and the codec's one error type.

The messages in the errors are those of the Go code generated for the Kubernetes types (gogo-protobuf's
``generated.pb.go``: ``unexpected EOF``, ``proto: integer overflow``, ``proto: wrong wireType = 2 for field
Name``...), so a client sees what the real server would have said.
"""

from __future__ import annotations

VARINT, FIXED64, LENGTH, START_GROUP, END_GROUP, FIXED32 = 0, 1, 2, 3, 4, 5


class CodecError(ValueError):
    """Bytes or a JSON value that the Kubernetes types cannot represent."""


def read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """(value, next position) of the unsigned varint at pos; at most 10 bytes, as Go reads a uint64."""
    result = 0
    shift = 0
    while True:
        if shift >= 64:
            raise CodecError("proto: integer overflow")
        if pos >= end:
            raise CodecError("unexpected EOF")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, pos
        shift += 7


def read_length(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """(start, stop) of a length-delimited value at pos."""
    length, pos = read_varint(data, pos, end)
    if length >= 1 << 63:
        raise CodecError("proto: negative length found during unmarshaling")
    stop = pos + length
    if stop > end:
        raise CodecError("unexpected EOF")
    return pos, stop


def skip(data: bytes, pos: int, end: int, wire: int, depth: int = 0) -> int:
    """The position after an unknown field's value (gogo's skipGenerated: groups are skipped whole)."""
    if wire == VARINT:
        return read_varint(data, pos, end)[1]
    if wire == FIXED64:
        pos += 8
    elif wire == FIXED32:
        pos += 4
    elif wire == LENGTH:
        return read_length(data, pos, end)[1]
    elif wire == START_GROUP:
        if depth > 100:
            raise CodecError("proto: too deeply nested groups")
        while True:
            tag, pos = read_varint(data, pos, end)
            inner = tag & 7
            if inner == END_GROUP:
                return pos
            pos = skip(data, pos, end, inner, depth + 1)
    elif wire == END_GROUP:
        raise CodecError("proto: unexpected end of group")
    else:
        raise CodecError(f"proto: illegal wireType {wire}")
    if pos > end:
        raise CodecError("unexpected EOF")
    return pos


_SMALL = [bytes((i,)) for i in range(128)]


def varint(value: int) -> bytes:
    """The varint of a value; negative numbers as their 64-bit two's complement (10 bytes), as Go writes int64."""
    if 0 <= value < 128:
        return _SMALL[value]
    if value < 0:
        value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def signed(value: int, bits: int) -> int:
    """A varint read as Go's intN: the low bits, two's complement."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value
