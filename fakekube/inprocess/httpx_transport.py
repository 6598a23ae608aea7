"""httpx-based clients (kr8s on ``httpx``, lightkube on its fork ``httpx2``) in process.

``FakekubeTransport`` / ``AsyncFakekubeTransport`` are ``httpx.BaseTransport`` / ``httpx.AsyncBaseTransport``
answering every request from ``Front.handle`` (``fakekube.server.front``): inject one where a client takes a
transport (``httpx.Client(transport=FakekubeTransport(front))``). kr8s and lightkube build their own clients
with httpx's default transports, so ``install`` also routes requests to a fake's host that reach
``httpx.HTTPTransport`` / ``httpx.AsyncHTTPTransport`` into the front (``mock_kubernetes`` does this).

Both ``httpx`` and ``httpx2`` (the same API under another name) are routed when installed;
``transports(module)`` gives the transport classes for either. A watch is streamed event batch by event batch. In
async code the stream's wait for the next event runs in the loop's default executor (the stream's generator
blocks until an event arrives); every other request is answered synchronously inside the calling coroutine, as
the store is in memory. On an event loop in a simulation's virtual time (one with ``fakekube_pacing``:
``fakekube.sim.asyncioloop``) async requests are answered by ``fakekube.inprocess.httpx_paced`` instead: they
take the latency model's time and watches wait on the loop, without a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import importlib.util
import socket
import time
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import Any

import httpx

from fakekube.inprocess import upgrade
from fakekube.inprocess.paced import pacing_of
from fakekube.inprocess.routes import Routes, Undo, replace_attribute, undo_all
from fakekube.server.front import Front, HttpRequest, HttpResponse, headers_of


def front_request(request: Any) -> HttpRequest:
    """An httpx request as the front takes it."""
    body = request.read()
    url = request.url
    target = url.raw_path.decode("ascii")
    pairs = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.headers.raw]
    return HttpRequest(request.method, target, headers_of(pairs), body, ("127.0.0.1", 0))


def _headers(response: HttpResponse) -> list[tuple[str, str]]:
    # httpx decodes a chunked body itself when it reads a socket; here the chunks are handed over as they are.
    return [(k, v) for k, v in response.headers if k.lower() != "transfer-encoding"]


class _Stream:
    """A watch's body: its event batches; closing it ends the watch."""

    def __init__(self, response: HttpResponse) -> None:
        assert response.stream is not None
        self._response = response
        self._batches = response.stream(None)
        self._closed = False

    def _next(self) -> bytes | None:
        try:
            return b"".join(next(self._batches))
        except StopIteration:
            return None

    def __iter__(self) -> Iterator[bytes]:
        while (data := self._next()) is not None:
            yield data

    async def __aiter__(self) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        while (data := await loop.run_in_executor(None, self._next)) is not None:
            yield data

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._response.cancel()
        # a read running in an executor thread (ValueError: generator already executing) ends on the cancel
        with contextlib.suppress(ValueError):
            self._batches.close()
        self._response.finish()

    async def aclose(self) -> None:
        self.close()


@functools.cache
def _stream_class(hx: ModuleType) -> type:
    return type("Stream", (_Stream, hx.SyncByteStream, hx.AsyncByteStream), {})


class _UpgradedStream:
    """The client's end of an upgraded connection (exec, attach, port-forward over WebSocket), as httpcore's
    network streams give it in a response's ``network_stream`` extension, which httpx-ws reads and writes
    (kr8s). The other end is a Unix socket pair's (the network guard lets those connect): the front's
    protocol runs on it in a thread, as the threading server runs it on the client's socket."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._sock.settimeout(timeout)
        return self._sock.recv(max_bytes)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._sock.settimeout(timeout)
        self._sock.sendall(buffer)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes a read blocked in another thread
        self._sock.close()

    def get_extra_info(self, info: str) -> Any:
        return self._sock if info == "socket" else None


class _AsyncUpgradedStream(_UpgradedStream):
    """``_UpgradedStream`` for async clients: reads and writes wait on the running loop, not in a thread."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(sock)
        sock.setblocking(False)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # type: ignore[override]
        return await asyncio.wait_for(asyncio.get_running_loop().sock_recv(self._sock, max_bytes), timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # type: ignore[override]
        await asyncio.wait_for(asyncio.get_running_loop().sock_sendall(self._sock, buffer), timeout)

    async def aclose(self) -> None:
        self.close()


def _upgraded(answer: HttpResponse, asynchronous: bool) -> _UpgradedStream:
    client = upgrade.start(answer)
    return _AsyncUpgradedStream(client) if asynchronous else _UpgradedStream(client)


def read_timeout(request: Any) -> float | None:
    """How long the client waits for an answer (httpx's read timeout; None: for ever)."""
    timeout: float | None = (request.extensions.get("timeout") or {}).get("read")
    return timeout


def timed_out(hx: ModuleType, request: Any) -> Exception:
    """What the client's socket read raises when the answer takes longer than its read timeout."""
    return hx.ReadTimeout("timed out", request=request)  # type: ignore[no-any-return]


def to_httpx(hx: ModuleType, request: Any, answer: HttpResponse, body: Any = None, asynchronous: bool = False) -> Any:
    """``answer`` as ``hx.Response``; ``body``: a watch's byte stream (default: the stream read in the caller's
    thread, or an executor's)."""
    if answer.abort:
        answer.finish()
        raise hx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
    if answer.upgrade is not None:
        return hx.Response(answer.status, headers=_headers(answer), request=request,
                           extensions={"network_stream": _upgraded(answer, asynchronous)})
    if answer.stream is not None:
        return hx.Response(answer.status, headers=_headers(answer),
                           stream=body if body is not None else _stream_class(hx)(answer), request=request)
    answer.finish()
    return hx.Response(answer.status, headers=_headers(answer), content=answer.body, request=request)


def _response(hx: ModuleType, front: Front, request: Any, asynchronous: bool = False) -> Any:
    started = time.monotonic()
    answer = front.handle(front_request(request))
    timeout = read_timeout(request)
    if timeout is not None and answer.stream is None and answer.upgrade is None \
            and time.monotonic() - started > timeout:
        # The answer took longer than the client would wait for it: the timeout its socket read would raise.
        answer.finish()
        raise timed_out(hx, request)
    return to_httpx(hx, request, answer, asynchronous=asynchronous)


async def _async_response(hx: ModuleType, front: Front, request: Any) -> Any:
    pacing = pacing_of(asyncio.get_running_loop())
    if pacing is None:
        return _response(hx, front, request, asynchronous=True)
    from fakekube.inprocess.httpx_paced import paced_response

    return await paced_response(hx, front, request, pacing)


@functools.cache
def transports(hx: ModuleType = httpx) -> tuple[type, type]:
    """(sync, async) transport classes of ``hx`` (``httpx`` or ``httpx2``) answering from a front:
    ``hx.Client(transport=sync(front))``, ``hx.AsyncClient(transport=async_(front))``."""

    class Transport(hx.BaseTransport):  # type: ignore[name-defined,misc]
        """Every request answered by ``front``."""

        def __init__(self, front: Front) -> None:
            self.front = front

        def handle_request(self, request: Any) -> Any:
            return _response(hx, self.front, request)

    class AsyncTransport(hx.AsyncBaseTransport):  # type: ignore[name-defined,misc]
        """Every request answered by ``front``, in the calling coroutine (a watch's waits in an executor), or
        paced on a loop in virtual time (``httpx_paced``)."""

        def __init__(self, front: Front) -> None:
            self.front = front

        async def handle_async_request(self, request: Any) -> Any:
            return await _async_response(hx, self.front, request)

    return Transport, AsyncTransport


FakekubeTransport, AsyncFakekubeTransport = transports(httpx)


# -- routing the default transports ----------------------------------------------------------------------------

MODULES = ("httpx", "httpx2")


def _front_for(request: Any) -> Front | None:
    return _ROUTES.front_for(request.url.host)


def _patch_module(hx: ModuleType) -> Undo:
    def handle(self: Any, request: Any) -> Any:
        front = _front_for(request)
        return sync(self, request) if front is None else _response(hx, front, request)

    async def handle_async(self: Any, request: Any) -> Any:
        front = _front_for(request)
        return await async_(self, request) if front is None else await _async_response(hx, front, request)

    sync, undo_sync = replace_attribute(hx.HTTPTransport, "handle_request", handle)
    async_, undo_async = replace_attribute(hx.AsyncHTTPTransport, "handle_async_request", handle_async)
    return undo_all([undo_sync, undo_async])


def _patch() -> Undo:
    return undo_all([_patch_module(importlib.import_module(name)) for name in MODULES
                     if importlib.util.find_spec(name) is not None])


_ROUTES = Routes(_patch)


def install(host: str, front: Front) -> None:
    """Route requests to ``host`` that reach the default transports of ``httpx`` and ``httpx2`` into ``front``."""
    _ROUTES.add(host, front)


def uninstall(host: str, front: Front) -> None:
    _ROUTES.remove(host, front)
