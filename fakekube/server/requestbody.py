"""Reading a request's body off the connection: Content-Length or chunked, within the server's limit.

A body over the limit is refused with kube-apiserver's 413 (``Request entity too large: limit is N``,
apiserver ``pkg/server/filters`` MaxRequestBodyBytes); one of a declared length up to ``DISCARD_LIMIT`` is read
and dropped first, so the client, still sending, gets to read the answer. Every refusal here leaves the
connection unusable, and the caller closes it.
"""

from __future__ import annotations

from email.message import Message
from typing import BinaryIO

from fakekube import errors

DISCARD_LIMIT = 64 * 1024 * 1024


def too_large(limit: int) -> errors.ApiError:
    return errors.RequestEntityTooLarge(f"Request entity too large: limit is {limit}")


def read(rfile: BinaryIO, headers: Message, limit: int) -> bytes:
    """The body; ApiError for a malformed or oversized one, ConnectionResetError when the client left."""
    if "chunked" in headers.get("Transfer-Encoding", "").lower():
        return _read_chunked(rfile, limit)
    raw_length = headers.get("Content-Length")
    if not raw_length:
        return b""
    try:
        length = int(raw_length)
        if length < 0:
            raise ValueError
    except ValueError:
        raise errors.BadRequest(f"invalid Content-Length: {raw_length!r}") from None
    if length > limit:
        if length <= DISCARD_LIMIT:
            _discard(rfile, length)
        raise too_large(limit)
    data = rfile.read(length)
    if len(data) < length:
        raise ConnectionResetError("the client closed the connection in the middle of the body")
    return data


def _read_chunked(rfile: BinaryIO, limit: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        line = rfile.readline(1024)
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise errors.BadRequest("malformed chunked request body") from None
        if size == 0:
            while rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return b"".join(parts)
        total += size
        if total > limit:
            raise too_large(limit)
        data = rfile.read(size)
        if len(data) < size:
            raise ConnectionResetError("the client closed the connection in the middle of the body")
        parts.append(data)
        rfile.readline(2)


def _discard(rfile: BinaryIO, length: int) -> None:
    while length > 0:
        data = rfile.read(min(length, 1 << 16))
        if not data:
            return
        length -= len(data)
