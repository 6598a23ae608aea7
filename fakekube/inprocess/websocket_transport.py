"""websocket-client (the official ``kubernetes`` client's exec, attach and port-forward) in process.

``kubernetes.stream`` opens its own connection with websocket-client's ``WebSocket.connect``
(kubernetes/stream/ws_client.py ``create_websocket``, 37.0.2), never through urllib3. Inside ``mock_kubernetes``,
``connect`` to a fake's host is handed a pre-made socket (websocket-client's own ``socket=`` option, meant for
"a pre-initialized stream socket"): ``InProcessSocket``, a pair of in-memory byte pipes. Everything else is the
real code on both ends: websocket-client writes its upgrade request, reads the reply, validates the accept key and
frames, masks and parses messages; the request goes to ``Front.handle`` and the reply's head is
written as the threading server writes it (``wire_head``), so a refusal before the upgrade raises the same
``WebSocketBadStatusException`` (and ``ApiException(status=0)`` from the client) as over HTTP; after a 101 the
front's upgrade function (exec/attach's ``ChannelSession``, port-forward's ``PortForwardSession``, on wsproto)
runs in a thread of its own, as it runs in the connection's thread over HTTP.

The client waits for frames with ``poll``/``select`` on the socket's file descriptor (``WSClient.update``,
``PortForward._proxy``), so the in-memory socket has one: an eventfd (a socketpair on systems without one —
local, it never connects) that is readable while bytes or the end of the stream wait, and always writable.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import websocket

from fakekube.inprocess.requestbytes import Incomplete, parse_request
from fakekube.inprocess.routes import Routes, Undo, replace_attribute
from fakekube.server.front import Front
from fakekube.server.messages import HttpRequest, HttpResponse, wire_head

_SESSIONS: set[InProcessSocket] = set()  # connections whose upgraded session may still run
_LOCK = threading.Lock()  # guards _SESSIONS
_original_connect: Callable[..., Any] | None = None
JOIN_TIMEOUT = 5.0  # how long closing a connection waits for its server session to end


def _patch() -> Undo:
    global _original_connect
    _original_connect, undo = replace_attribute(websocket.WebSocket, "connect", _connect)
    return undo


_ROUTES = Routes(_patch)
front_for = _ROUTES.front_for


def install(host: str, front: Front) -> None:
    """Route websocket-client connections to ``host`` (ws or wss, any port) into ``front``."""
    _ROUTES.add(host, front)


def uninstall(host: str, front: Front) -> None:
    """Stop routing ``host`` to ``front``; its streams still open are ended and their threads joined."""
    _ROUTES.remove(host, front)
    with _LOCK:
        left = [s for s in _SESSIONS if s.front is front]
    for sock in left:
        sock.hang_up()


def _connect(self: websocket.WebSocket, url: str, **options: Any) -> None:
    front = front_for(urlsplit(url).hostname)
    if front is not None and options.get("socket") is None:
        # The upgrade is what the client asked for; a proxy is never involved in process.
        options = {k: v for k, v in options.items() if not k.startswith("http_proxy") and k != "http_no_proxy"}
        options["socket"] = InProcessSocket(front, options.get("timeout", self.sock_opt.timeout))
    assert _original_connect is not None
    _original_connect(self, url, **options)


class _Pipe:
    """Bytes one way: ``write`` appends, ``read`` waits for some (b"" once the writer ended), ``end`` ends it."""

    def __init__(self, on_change: Callable[[bool], None] | None = None) -> None:
        self._cond = threading.Condition()
        self._data = bytearray()
        self.ended = False
        self._on_change = on_change

    def _signal(self) -> None:
        if self._on_change is not None:
            self._on_change(bool(self._data) or self.ended)

    def write(self, data: bytes) -> bool:
        with self._cond:
            if self.ended:
                return False
            self._data += data
            self._signal()
            self._cond.notify_all()
            return True

    def end(self) -> None:
        with self._cond:
            self.ended = True
            self._signal()
            self._cond.notify_all()

    def read(self, size: int, timeout: float | None = None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._data and not self.ended:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise TimeoutError("timed out")
                self._cond.wait(remaining)
            data = bytes(self._data[:size])
            del self._data[:size]
            self._signal()
            return data


class _Readiness:
    """A file descriptor readable while ``set`` (poll and select see it), always writable."""

    def __init__(self) -> None:
        self._on = False
        self._pair: tuple[socket.socket, socket.socket] | None = None
        if hasattr(os, "eventfd"):
            self.fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        else:  # pragma: no cover - systems without eventfd (macOS): a local socket pair, which never connects
            self._pair = socket.socketpair()
            self._pair[0].setblocking(False)
            self.fd = self._pair[0].fileno()
        self._finalizer = weakref.finalize(self, _close_fd, self.fd, self._pair)

    def set(self, on: bool) -> None:
        if on == self._on or not self._finalizer.alive:
            return
        self._on = on
        if self._pair is None:
            if on:
                os.eventfd_write(self.fd, 1)
            else:
                with contextlib.suppress(BlockingIOError):
                    os.eventfd_read(self.fd)
        elif on:  # pragma: no cover
            self._pair[1].send(b"\0")
        else:  # pragma: no cover
            with contextlib.suppress(BlockingIOError):
                self._pair[0].recv(1)

    def close(self) -> None:
        self._finalizer()


def _close_fd(fd: int, pair: tuple[socket.socket, socket.socket] | None) -> None:
    if pair is None:
        os.close(fd)
    else:  # pragma: no cover
        for s in pair:
            s.close()


class _ServerEnd:
    """What the front's upgrade function is handed as its connection: the socket (``sendall``, ``shutdown``)
    and the buffered reader (``read1``) of ``fakekube.server.upgraded.UpgradedSocket``."""

    def __init__(self, to_client: _Pipe, to_server: _Pipe) -> None:
        self._to_client = to_client
        self._to_server = to_server

    def sendall(self, data: bytes) -> None:
        if not self._to_client.write(bytes(data)):
            raise BrokenPipeError("the client closed the connection")

    def read1(self, size: int = -1) -> bytes:
        return self._to_server.read(size if size > 0 else 64 * 1024)

    def shutdown(self, how: int) -> None:
        self._to_client.end()
        if how == socket.SHUT_RDWR:
            self._to_server.end()


class InProcessSocket:
    """The client's end of one in-process connection, as much of ``socket.socket`` as websocket-client and the
    official client's stream code use. Its first bytes are an HTTP request, answered by the front; after a 101
    the bytes go to and from the front's upgraded session."""

    family = socket.AF_UNSPEC
    type = socket.SOCK_STREAM

    def __init__(self, front: Front, timeout: float | None = None) -> None:
        self.front = front
        self._timeout = timeout
        self._readiness = _Readiness()
        self._to_client = _Pipe(self._readiness.set)
        self._to_server = _Pipe()
        self._request = b""
        self._answered = False
        self._session: threading.Thread | None = None
        self._closed = False

    # -- socket.socket ------------------------------------------------------------------------------------

    def fileno(self) -> int:
        return self._readiness.fd

    def gettimeout(self) -> float | None:
        return self._timeout

    def settimeout(self, timeout: float | None) -> None:
        self._timeout = timeout

    def setblocking(self, flag: bool) -> None:
        self._timeout = None if flag else 0.0

    def setsockopt(self, *args: Any) -> None:
        return None

    def send(self, data: bytes) -> int:
        if self._closed:
            raise OSError(9, "Bad file descriptor")
        if not self._answered:
            self._request += bytes(data)
            try:
                request, used = parse_request(self._request)
            except Incomplete:
                return len(data)
            except (ValueError, IndexError):  # not a request line websocket-client writes: hang up
                self._answered = True
                self._to_client.end()
                return len(data)
            self._answered = True
            rest, self._request = self._request[used:], b""
            self._answer(request, rest)
            return len(data)
        if not self._to_server.write(bytes(data)):
            raise BrokenPipeError(32, "Broken pipe")
        return len(data)

    def sendall(self, data: bytes) -> None:
        self.send(data)

    def recv(self, size: int) -> bytes:
        if self._closed:
            raise OSError(9, "Bad file descriptor")
        return self._to_client.read(size, self._timeout)

    def shutdown(self, how: int) -> None:
        if how in (socket.SHUT_WR, socket.SHUT_RDWR):
            self._to_server.end()
        if how in (socket.SHUT_RD, socket.SHUT_RDWR):
            self._to_client.end()

    def close(self) -> None:
        """Hang up (the server sees the end of the stream) and wait for the server's session to end."""
        if self._closed:
            return
        self._closed = True
        self.hang_up()
        self._readiness.close()

    def hang_up(self) -> None:
        """End the connection both ways, as a server's hang-up would (the client reads the end of the stream,
        it is not closed under it), and wait for the server's session to end."""
        self._to_server.end()
        self._to_client.end()
        session = self._session
        if session is not None and session is not threading.current_thread():
            session.join(JOIN_TIMEOUT)

    # -- the server ---------------------------------------------------------------------------------------

    def _answer(self, request: HttpRequest, rest: bytes) -> None:
        response = self.front.handle(request)
        if response.abort:
            response.finish()
            self._to_client.end()
            return
        if response.upgrade is None:
            self._reply(response)
            return
        self._to_client.write(wire_head(response, True))
        if rest:
            self._to_server.write(rest)
        with _LOCK:
            _SESSIONS.add(self)
        self._session = threading.Thread(target=self._serve, args=(response,), name="fakekube-inprocess-ws",
                                         daemon=True)
        self._session.start()

    def _reply(self, response: HttpResponse) -> None:
        """A refusal (or any reply but a 101): the head and body, then the end, as the server closes after an
        upgrade request it did not take."""
        try:
            if response.stream is not None:
                response.cancel()
                self._to_client.write(wire_head(response, True))
            else:
                self._to_client.write(wire_head(response, response.close) + response.body)
        finally:
            response.finish()
            self._to_client.end()

    def _serve(self, response: HttpResponse) -> None:
        assert response.upgrade is not None
        end = _ServerEnd(self._to_client, self._to_server)
        try:
            response.upgrade(end, end)
        finally:
            response.finish()
            self._to_client.end()
            with _LOCK:
                _SESSIONS.discard(self)
