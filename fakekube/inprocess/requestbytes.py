"""HTTP/1.1 requests from the bytes a client wrote to an in-memory connection (the aiohttp transport, and the
upgrade request websocket-client writes): the request line, the headers as the server's ``Headers``, and a body
framed by Content-Length or chunked.
"""

from __future__ import annotations

from fakekube.server.front import HttpRequest, headers_of

_END_OF_HEAD = b"\r\n\r\n"


class Incomplete(Exception):
    """The request written so far is not whole yet."""


def parse_request(buffer: bytes) -> tuple[HttpRequest, int]:
    """The first whole request in ``buffer`` and its length; Incomplete when more bytes are needed."""
    end = buffer.find(_END_OF_HEAD)
    if end < 0:
        raise Incomplete
    lines = buffer[:end].decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    pairs = [(name.strip(), value.strip()) for name, _, value in (line.partition(":") for line in lines[1:])]
    headers = headers_of(pairs)
    start = end + len(_END_OF_HEAD)
    if "chunked" in (headers.get("Transfer-Encoding") or "").lower():
        body, used = _dechunked(buffer, start)
    else:
        length = int(headers.get("Content-Length") or 0)
        if len(buffer) < start + length:
            raise Incomplete
        body, used = buffer[start:start + length], start + length
    return HttpRequest(method, target, headers, body, ("127.0.0.1", 0)), used


def _dechunked(buffer: bytes, at: int) -> tuple[bytes, int]:
    parts = []
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            raise Incomplete
        size = int(buffer[at:line_end].split(b";", 1)[0], 16)
        at = line_end + 2
        if size == 0:
            trailer_end = buffer.find(b"\r\n", at)
            if trailer_end < 0:
                raise Incomplete
            return b"".join(parts), trailer_end + 2
        if len(buffer) < at + size + 2:
            raise Incomplete
        parts.append(buffer[at:at + size])
        at += size + 2
