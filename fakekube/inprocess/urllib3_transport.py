"""The official ``kubernetes`` client (and anything else on urllib3) in process: ``urllib3.PoolManager.urlopen``
answers requests to a fake's host from ``Front.handle`` (``fakekube.server.front``) with a real
``urllib3.HTTPResponse``, no socket involved. Every request a PoolManager or ProxyManager sends goes through
``urlopen`` after its body is encoded (JSON, form fields, multipart), so plain calls, ``_preload_content=False``,
``watch.Watch`` and the dynamic client all take this path. A watch's response reads its stream as chunks
(``stream()``/``read_chunked``), event by event as the server writes them; closing it ends the watch."""

from __future__ import annotations

import io
from collections.abc import Callable, Generator, Iterator
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

import urllib3
from urllib3 import HTTPHeaderDict
from urllib3.poolmanager import PoolManager

from fakekube.inprocess.routes import Routes, Undo, replace_attribute
from fakekube.server.front import Front, HttpRequest, HttpResponse, headers_of

_original_urlopen: Callable[..., Any] | None = None


def _patch() -> Undo:
    global _original_urlopen
    _original_urlopen, undo = replace_attribute(PoolManager, "urlopen", _urlopen)
    return undo


_ROUTES = Routes(_patch)
front_for = _ROUTES.front_for


def install(host: str, front: Front) -> None:
    """Route requests to ``host`` (any scheme and port) into ``front``."""
    _ROUTES.add(host, front)


def uninstall(host: str, front: Front) -> None:
    _ROUTES.remove(host, front)


def _body_bytes(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    if hasattr(body, "read"):
        return _body_bytes(body.read())
    return b"".join(_body_bytes(part) for part in body)  # an iterable of chunks


_DISTINCT: dict[tuple[str, ...], bool] = {}  # header names → whether they differ in more than case


def _distinct(names: tuple[str, ...]) -> bool:
    distinct = _DISTINCT.get(names)
    if distinct is None:
        if len(_DISTINCT) > 256:  # a client sends a few sets of names; anything else need not stay
            _DISTINCT.clear()
        distinct = _DISTINCT[names] = len({name.lower() for name in names}) == len(names)
    return distinct


def _merged_headers(pool: Any, request: Any) -> Any:
    """The pool's headers updated with the request's, as urllib3 merges them into an ``HTTPHeaderDict``; what
    clients pass (no pool headers, a dict of distinct names) is taken as it is."""
    if not pool and type(request) is dict and _distinct(tuple(request)):
        return request.items()
    headers = HTTPHeaderDict(pool)
    headers.update(request or {})
    return headers.items()


def _split_url(url: str) -> tuple[str | None, str, str]:
    """(host name, netloc, target) of a URL, as ``urlsplit`` reads them. A plain URL to a fake's host, which
    clients send, is cut where urlsplit would cut it: urlsplit's cache holds 128 URLs, fewer than a test
    addresses, and parsing one costs more than the rest of the transport's work on a request."""
    scheme_end = url.find("://")
    if 0 < scheme_end <= 5 and "@" not in url and "[" not in url and "\t" not in url and "\r" not in url \
            and "\n" not in url and url[:scheme_end].lower() in ("http", "https"):
        start = scheme_end + 3
        end = len(url)
        for stop in "/?#":
            at = url.find(stop, start)
            if 0 <= at < end:
                end = at
        netloc = url[start:end]
        host = netloc.partition(":")[0].lower()
        if netloc and netloc == netloc.strip() and front_for(host) is not None:
            path, _, query = url[end:].partition("#")[0].partition("?")
            return host, netloc, (path or "/") + (f"?{query}" if query else "")
    parts = urlsplit(url)
    return parts.hostname, parts.netloc, (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _urlopen(self: PoolManager, method: str, url: str, redirect: bool = True, **kw: Any) -> Any:
    host, netloc, target = _split_url(url)
    front = front_for(host)
    if front is None:
        assert _original_urlopen is not None
        return _original_urlopen(self, method, url, redirect=redirect, **kw)
    body = _body_bytes(kw.get("body"))
    pairs = [("Host", netloc), *_merged_headers(self.headers, kw.get("headers"))]
    if body or method in ("POST", "PUT", "PATCH"):
        pairs.append(("Content-Length", str(len(body))))
    request = HttpRequest(method, target, headers_of(pairs), body, ("127.0.0.1", 0))
    return to_urllib3(front.handle(request), method, url, kw.get("preload_content", True),
                      kw.get("decode_content", True))


def to_urllib3(response: HttpResponse, method: str, url: str, preload_content: bool = True,
               decode_content: bool = True) -> urllib3.HTTPResponse:
    """The front's response as urllib3 gives one (an aborted request: the connection error a client sees)."""
    if response.abort:
        response.finish()
        raise urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionResetError("the server closed it"))
    headers = HTTPHeaderDict()
    for name, value in response.headers:
        headers.add(name, value)
    reason = _phrase(response.status)
    if response.stream is None:
        response.finish()
        body = response.body
        if preload_content and body and not headers.get("Content-Encoding"):
            # The state preloading a BytesIO leaves (its body read, the file at its end), without the read.
            answer = urllib3.HTTPResponse(body, headers=headers, status=response.status, reason=reason,
                                          preload_content=True, decode_content=decode_content,
                                          request_method=method, request_url=url, version=11,
                                          version_string="HTTP/1.1")
            answer._fp = io.BytesIO(body)
            answer._fp.seek(len(body))
            answer._fp_bytes_read = len(body)
            answer.length_remaining = 0
            return answer
        return urllib3.HTTPResponse(io.BytesIO(body), headers=headers, status=response.status,
                                    reason=reason, preload_content=preload_content, decode_content=decode_content,
                                    request_method=method, request_url=url, version=11, version_string="HTTP/1.1")
    reader = StreamReader(response)
    return _StreamedResponse(reader, headers=headers, status=response.status, reason=reason,
                             preload_content=preload_content, decode_content=decode_content,
                             request_method=method, request_url=url, version=11, version_string="HTTP/1.1",
                             connection=_StreamConnection(reader))


_PHRASES: dict[int, str] = {}


def _phrase(status: int) -> str:
    phrase = _PHRASES.get(status)
    if phrase is None:
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        _PHRASES[status] = phrase
    return phrase


class StreamReader(io.RawIOBase):
    """A watch stream's body as a file (``read``) and as its chunks (``batches``). ``close`` ends the watch,
    from any thread."""

    def __init__(self, response: HttpResponse) -> None:
        super().__init__()
        assert response.stream is not None
        self._response = response
        self._batches = response.stream(None)
        self._buffer = b""
        self._ended = False

    def readable(self) -> bool:
        return True

    def _next(self) -> bytes | None:
        if self._ended:
            return None
        try:
            return b"".join(next(self._batches))
        except StopIteration:
            self._end()
            return None

    def batches(self) -> Iterator[bytes]:
        if self._buffer:
            data, self._buffer = self._buffer, b""
            yield data
        while (data := self._next()) is not None:
            yield data

    def readinto(self, buffer: Any) -> int:
        while not self._buffer:
            data = self._next()
            if data is None:
                return 0
            self._buffer = data
        n = min(len(buffer), len(self._buffer))
        buffer[:n] = self._buffer[:n]
        self._buffer = self._buffer[n:]
        return n

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._response.finish()

    def close(self) -> None:
        if self.closed:
            return
        self._response.cancel()  # wakes a reader blocked in another thread; its generator then ends
        try:
            self._batches.close()
        except ValueError:  # running in another thread: the cancel ends it there
            pass
        else:
            self._end()
        super().close()


class _StreamConnection:
    """The connection a streamed response hangs on, as far as clients reach for it to end a read that blocks in
    another thread: the official client's ``Watch.stop()`` shuts ``response.connection.sock`` down
    (kubernetes/watch/watch.py; its SharedInformer's ``stop()`` then joins the watching thread), urllib3 closes
    ``connection`` when a response is abandoned. Either ends the stream, as a socket's shutdown would."""

    def __init__(self, reader: StreamReader) -> None:
        self._reader = reader
        self.sock = self

    def shutdown(self, how: int | None = None) -> None:
        self._reader.close()

    def close(self) -> None:
        self._reader.close()


class _StreamedResponse(urllib3.HTTPResponse):
    """A chunked response whose chunks are the stream's event batches."""

    def shutdown(self) -> None:  # urllib3 >= 2.3: unblock a read in another thread
        reader = self._fp
        assert isinstance(reader, StreamReader)
        reader.close()

    def supports_chunked_reads(self) -> bool:
        return True

    def read_chunked(self, amt: int | None = None, decode_content: bool | None = None) -> Generator[bytes]:
        reader = self._fp
        assert isinstance(reader, StreamReader)
        try:
            yield from reader.batches()
        finally:
            self.release_conn()
