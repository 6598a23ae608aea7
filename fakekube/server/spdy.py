"""SPDY/3.1 framing: the frames Kubernetes' streaming clients exchange over an upgraded connection.

The layout is the SPDY Protocol draft 3.1's, as github.com/moby/spdystream ``spdy/read.go`` and ``write.go``
(v0.5.1, the framer client-go and the kubelet use) read and write it: an 8-byte header (a control bit, then
version and type for control frames or a stream id for data frames; 8 bits of flags and a 24-bit length), and
header blocks (32-bit counts and lengths, lower-case names, values joined by NUL) compressed by one zlib stream per
direction for the whole connection, primed with the SPDY/3 dictionary and flushed (Z_SYNC_FLUSH) after each block.

No maintained Python SPDY library fits (docs/dependencies.md), so this module is the codec only: bytes in,
frames out (``FrameReader``) and frames to bytes (``FrameWriter``); ``fakekube.server.spdyconn`` runs streams.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

from fakekube.server.spdydict import DICTIONARY

VERSION = 3
SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY, HEADERS, WINDOW_UPDATE = 1, 2, 3, 4, 6, 7, 8, 9
FLAG_FIN = 0x01
# RST_STREAM status codes (spdy/types.go)
PROTOCOL_ERROR, INVALID_STREAM, REFUSED_STREAM, UNSUPPORTED_VERSION, CANCEL, INTERNAL_ERROR = 1, 2, 3, 4, 5, 6
GOAWAY_OK, GOAWAY_PROTOCOL_ERROR = 0, 1
MAX_LENGTH = (1 << 24) - 1
MAX_HEADERS = 1000  # spdystream's defaultMaxHeaderCount
MAX_FIELD = 1 << 20  # and defaultMaxHeaderFieldSize


class SpdyError(Exception):
    """A frame the peer should not have sent: spdystream's framer fails the connection on one."""


@dataclass
class Frame:
    """One frame. ``kind`` is the control type, or 0 for a data frame; ``stream`` the stream id (PING: its id,
    GOAWAY: the last good stream); ``value`` RST_STREAM's or GOAWAY's status, WINDOW_UPDATE's delta."""

    kind: int
    stream: int = 0
    flags: int = 0
    data: bytes = b""
    headers: dict[str, list[str]] = field(default_factory=dict)
    value: int = 0

    @property
    def fin(self) -> bool:
        return bool(self.flags & FLAG_FIN)

    def header(self, name: str) -> str:
        """The first value of a header (names are case-insensitive, as http.Header.Get), "" when absent."""
        values = self.headers.get(name.lower()) or [""]
        return values[0]


def _u32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 4], "big")


def _parse_block(block: bytes) -> dict[str, list[str]]:
    """A decompressed header block: a count, then length-prefixed names and values."""
    if len(block) < 4:
        raise SpdyError("truncated header block")
    count, at = _u32(block, 0), 4
    if count > MAX_HEADERS:
        raise SpdyError(f"{count} headers")
    headers: dict[str, list[str]] = {}
    for _ in range(count):
        pair: list[str] = []
        for _ in range(2):
            if at + 4 > len(block):
                raise SpdyError("truncated header block")
            size = _u32(block, at)
            if size > MAX_FIELD or at + 4 + size > len(block):
                raise SpdyError("header field too long")
            pair.append(block[at + 4:at + 4 + size].decode("latin-1"))
            at += 4 + size
        headers.setdefault(pair[0].lower(), []).extend(pair[1].split("\x00"))
    if at != len(block):
        raise SpdyError("header block longer than its headers")  # spdystream: WrongCompressedPayloadSize
    return headers


class FrameReader:
    """Splits the bytes a peer sends into frames, however they were chunked (a socket read, a WebSocket message)."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._inflate = zlib.decompressobj(zdict=DICTIONARY)

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        while len(self._buffer) >= 8:
            length = _u32(self._buffer, 4) & MAX_LENGTH
            if len(self._buffer) < 8 + length:
                break
            head, payload = bytes(self._buffer[:8]), bytes(self._buffer[8:8 + length])
            del self._buffer[:8 + length]
            frames.append(self._frame(head, payload))
        return frames

    def _headers(self, compressed: bytes) -> dict[str, list[str]]:
        try:
            block = self._inflate.decompress(compressed)
        except zlib.error as exc:
            raise SpdyError(f"header block: {exc}") from None
        return _parse_block(block)

    def _frame(self, head: bytes, payload: bytes) -> Frame:
        first, flags = _u32(head, 0), head[4]
        if not first & 0x80000000:
            stream = first & 0x7FFFFFFF
            if stream == 0:
                raise SpdyError("data frame on stream 0")
            return Frame(0, stream, flags, payload)
        kind, size = first & 0xFFFF, len(payload)
        fixed = {SYN_STREAM: 10, SYN_REPLY: 4, HEADERS: 4}
        if kind in fixed:
            if size < fixed[kind]:
                raise SpdyError("short frame")
            stream = _u32(payload, 0) & 0x7FFFFFFF
            if stream == 0:
                raise SpdyError("stream 0")
            return Frame(kind, stream, flags, headers=self._headers(payload[fixed[kind]:]))
        if kind in (RST_STREAM, GOAWAY, WINDOW_UPDATE):
            if size != 8:
                raise SpdyError("control frame of the wrong length")
            frame = Frame(kind, _u32(payload, 0) & 0x7FFFFFFF, flags, value=_u32(payload, 4))
            if kind == RST_STREAM and (frame.stream == 0 or frame.value == 0):
                raise SpdyError("invalid RST_STREAM")
            return frame
        if kind == PING:
            if size != 4 or _u32(payload, 0) == 0 or flags:
                raise SpdyError("invalid PING")
            return Frame(PING, _u32(payload, 0))
        if kind == SETTINGS:
            if size < 4 or _u32(payload, 0) > (size - 4) // 8:
                raise SpdyError("invalid SETTINGS")
            return Frame(SETTINGS, flags=flags, data=payload)
        raise SpdyError(f"unknown control frame type {kind}")


class FrameWriter:
    """Encodes frames; one per connection and direction (the header compressor's state spans frames)."""

    def __init__(self) -> None:
        self._deflate = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 15, zdict=DICTIONARY)

    def _block(self, headers: dict[str, list[str]]) -> bytes:
        raw = bytearray(struct.pack(">I", len(headers)))
        for name, values in headers.items():
            for part in (name.lower().encode("latin-1"), "\x00".join(values).encode("latin-1")):
                raw += struct.pack(">I", len(part)) + part
        return self._deflate.compress(bytes(raw)) + self._deflate.flush(zlib.Z_SYNC_FLUSH)

    @staticmethod
    def _control(kind: int, flags: int, payload: bytes) -> bytes:
        return struct.pack(">HHI", 0x8000 | VERSION, kind, (flags << 24) | len(payload)) + payload

    def syn_reply(self, stream: int, headers: dict[str, list[str]] | None = None, fin: bool = False) -> bytes:
        return self._control(SYN_REPLY, FLAG_FIN if fin else 0,
                             struct.pack(">I", stream) + self._block(headers or {}))

    def syn_stream(self, stream: int, headers: dict[str, list[str]], fin: bool = False) -> bytes:
        """A client's stream opening (the server never opens one; tests use it)."""
        return self._control(SYN_STREAM, FLAG_FIN if fin else 0,
                             struct.pack(">IIBB", stream, 0, 0, 0) + self._block(headers))

    @staticmethod
    def data(stream: int, data: bytes, fin: bool = False) -> bytes:
        return struct.pack(">II", stream, ((FLAG_FIN if fin else 0) << 24) | len(data)) + data

    def rst_stream(self, stream: int, status: int) -> bytes:
        return self._control(RST_STREAM, 0, struct.pack(">II", stream, status))

    def ping(self, ping_id: int) -> bytes:
        return self._control(PING, 0, struct.pack(">I", ping_id))

    def goaway(self, last_stream: int, status: int = GOAWAY_OK) -> bytes:
        return self._control(GOAWAY, 0, struct.pack(">II", last_stream, status))

    def window_update(self, stream: int, delta: int) -> bytes:
        return self._control(WINDOW_UPDATE, 0, struct.pack(">II", stream, delta))

    def settings(self, entries: list[tuple[int, int, int]]) -> bytes:
        """``(flags, id, value)`` entries."""
        body = struct.pack(">I", len(entries)) + b"".join(struct.pack(">II", (f << 24) | i, v) for f, i, v in entries)
        return self._control(SETTINGS, 0, body)
