"""aiohttp-based clients (kubernetes_asyncio, kopf) in process: a connection to a fake's host is an in-memory
``asyncio.Transport`` whose far end is ``Front.handle`` (``fakekube.server.front``).

aiohttp writes the request's bytes to the transport and parses the response's bytes that the transport hands
its protocol, so this works one level below aiohttp's API: ``aiohttp.TCPConnector._create_connection`` is
wrapped while a mock is active and, for the fake's host, returns aiohttp's own ``ResponseHandler`` connected to
a ``FrontTransport`` instead of a socket. The transport parses each HTTP/1.1 request it is written
(Content-Length or chunked body), answers it with the bytes the threading server would write (status line,
headers, body; a watch's event batches as chunks), and feeds them to the protocol on the event loop. A watch
waits for its next event in the loop's default executor; closing the connection stops the watch. After a 101
(exec, attach, port-forward: kubernetes_asyncio's ``WsApiClient``) the transport carries bytes both ways between
the protocol and the upgrade's far end (``fakekube.inprocess.upgrade``), read on the event loop. On an event
loop in a simulation's virtual time (one with ``fakekube_pacing``: ``fakekube.sim.asyncioloop``) the connection
is ``fakekube.inprocess.aiohttp_paced.PacedFrontTransport`` instead: requests take the latency model's time and
watches wait on the loop, without a thread.
Tested with aiohttp 3.14.5.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
from collections.abc import Callable, Generator
from typing import Any

from fakekube.inprocess import upgrade
from fakekube.inprocess.paced import next_batch, pacing_of
from fakekube.inprocess.requestbytes import Incomplete, parse_request
from fakekube.inprocess.routes import Routes, Undo, replace_attribute
from fakekube.server.front import Front, HttpRequest, HttpResponse
from fakekube.server.messages import wire_head
from fakekube.server.watchstream import _END, chunk


class FrontTransport(asyncio.Transport):
    """One keep-alive connection to ``front``, in memory."""

    def __init__(self, front: Front, protocol: asyncio.Protocol, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._front = front
        self._protocol = protocol
        self._loop = loop
        self._buffer = b""
        self._closing = False
        self._stream: tuple[HttpResponse, Generator[list[bytes] | float, None, bool]] | None = None
        self._pump_task: asyncio.Task[None] | None = None
        self._tunnel: socket.socket | None = None  # the client's end of an upgraded connection
        self._unsent = bytearray()  # what the client wrote to it that its socket buffer did not take yet

    # -- what aiohttp asks of a transport ---------------------------------------------------------------------

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 0), "sockname": ("127.0.0.1", 0)}.get(name, default)

    def is_closing(self) -> bool:
        return self._closing

    def get_write_buffer_size(self) -> int:
        return 0

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def is_reading(self) -> bool:
        return not self._closing

    def can_write_eof(self) -> bool:
        return False

    def writelines(self, data: Any) -> None:
        self.write(b"".join(data))

    def write(self, data: Any) -> None:
        if self._closing:
            return
        if self._tunnel is not None:
            self._unsent += data
            self._tunnel_writable()
            return
        self._buffer += bytes(data)
        while self._buffer and self._stream is None and not self._closing:
            request = self._take_request()
            if request is None:
                return
            self._answer(self._front.handle(request))

    def _take_request(self) -> HttpRequest | None:
        """The next whole request, taken out of the buffer; None while it is incomplete, or when the bytes are
        what no client sends (the connection is then dropped)."""
        try:
            request, used = parse_request(self._buffer)
        except Incomplete:
            return None
        except (ValueError, IndexError):
            self._loop.call_soon(self._lost)
            return None
        self._buffer = self._buffer[used:]
        return request

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        self._end_stream()
        self._end_tunnel()
        self._loop.call_soon(self._protocol.connection_lost, None)

    abort = close

    # -- answers ----------------------------------------------------------------------------------------------

    def _feed(self, data: bytes) -> None:
        if not self._closing:
            self._protocol.data_received(data)

    def _lost(self) -> None:
        if not self._closing:
            self._closing = True
            self._end_tunnel()
            self._protocol.connection_lost(None)

    def _answer(self, response: HttpResponse) -> None:
        if response.abort:
            response.finish()
            self._loop.call_soon(self._lost)
            return
        head = wire_head(response, response.close)
        if response.upgrade is not None:
            self._loop.call_soon(self._feed, head)
            self._tunnel = upgrade.start(response)
            self._tunnel.setblocking(False)
            self._loop.add_reader(self._tunnel.fileno(), self._tunnel_readable)
            return
        if response.stream is None:
            response.finish()
            self._loop.call_soon(self._feed, head + response.body)
            if response.close:
                self._loop.call_soon(self._lost)
            return
        self._loop.call_soon(self._feed, head)
        self._start_stream(response)

    def _start_stream(self, response: HttpResponse) -> None:
        assert response.stream is not None
        self._stream = (response, response.stream(None))
        self._pump_task = self._loop.create_task(self._pump())  # referenced: a task may not be collected

    async def _pump(self) -> None:
        assert self._stream is not None
        response, batches = self._stream
        try:
            await self._pump_batches(response, functools.partial(next_batch, batches))
        finally:
            # Cancelled (the loop is ending) or done: the watch stops, so an executor thread waiting on it returns
            # (asyncio.run waits for its executor), and the watch's own cleanup runs now, not when collected.
            response.cancel()
            with contextlib.suppress(ValueError):
                batches.close()

    async def _pump_batches(self, response: HttpResponse, step: Callable[[], list[bytes] | float | bool]) -> None:
        while not self._closing:
            batch = await self._loop.run_in_executor(None, step)
            if isinstance(batch, bool):
                self._stream_ended(response, batch)
                return
            assert not isinstance(batch, float)  # only a paced stream waits itself
            self._feed(b"".join(chunk(data) for data in batch))

    def _stream_ended(self, response: HttpResponse, clean: bool) -> None:
        self._stream = None
        response.finish()
        if clean:
            self._feed(_END)
            if self._buffer:  # a request written while the stream ran (none is; keep-alive anyway)
                self.write(b"")
        else:
            self._lost()

    def _tunnel_readable(self) -> None:
        assert self._tunnel is not None
        try:
            data = self._tunnel.recv(64 * 1024)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self._feed(data)
        else:  # the far end closed the connection
            self._lost()

    def _tunnel_writable(self) -> None:
        """Send what the socket takes now; the rest when it is writable again (the socket does not block the
        loop, and a large stdin outgrows its buffer)."""
        if self._tunnel is None:
            return
        try:
            sent = self._tunnel.send(self._unsent) if self._unsent else 0
        except BlockingIOError:
            sent = 0
        except OSError:  # the far end went away: its close reaches the protocol through the reader
            sent = len(self._unsent)
        del self._unsent[:sent]
        if self._unsent:
            self._loop.add_writer(self._tunnel.fileno(), self._tunnel_writable)
        else:
            self._loop.remove_writer(self._tunnel.fileno())

    def _end_tunnel(self) -> None:
        tunnel, self._tunnel = self._tunnel, None
        if tunnel is None:
            return
        self._unsent.clear()
        self._loop.remove_reader(tunnel.fileno())
        self._loop.remove_writer(tunnel.fileno())
        with contextlib.suppress(OSError):
            tunnel.shutdown(socket.SHUT_RDWR)
        tunnel.close()

    def _end_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is None:
            return
        response, batches = stream
        response.cancel()  # the executor thread's wait ends; the pump then sees the transport closing
        with contextlib.suppress(ValueError):
            batches.close()
        response.finish()


# -- routing aiohttp's TCPConnector ----------------------------------------------------------------------------

_original: Callable[..., Any] | None = None


async def _create_connection(self: Any, req: Any, traces: Any, timeout: Any) -> Any:
    front = _ROUTES.front_for(req.url.host)
    if front is None:
        assert _original is not None
        return await _original(self, req, traces, timeout)
    protocol = self._factory()
    loop = asyncio.get_running_loop()
    # An event loop in virtual time (fakekube.sim.asyncioloop) says how long requests take: paced connections.
    pacing = pacing_of(loop)
    if pacing is None:
        transport: FrontTransport = FrontTransport(front, protocol, loop)
    else:
        from fakekube.inprocess.aiohttp_paced import PacedFrontTransport

        transport = PacedFrontTransport(front, protocol, loop, pacing)
    protocol.connection_made(transport)
    return protocol


def _patch() -> Undo:
    global _original
    import aiohttp

    _original, undo = replace_attribute(aiohttp.TCPConnector, "_create_connection", _create_connection)
    return undo


_ROUTES = Routes(_patch)


def install(host: str, front: Front) -> None:
    """Connections aiohttp's ``TCPConnector`` opens to ``host`` go to ``front``, in memory."""
    _ROUTES.add(host, front)


def uninstall(host: str, front: Front) -> None:
    _ROUTES.remove(host, front)
