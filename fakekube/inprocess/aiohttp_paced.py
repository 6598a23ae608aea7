"""The aiohttp in-process connection on an event loop that keeps virtual time (``fakekube.sim.asyncioloop``).

``FrontTransport`` answers a request the moment aiohttp writes it and waits for a watch's next event in an
executor thread. On a loop whose ``fakekube_pacing`` attribute says how long requests take (a ``Pacing``), the
connection is a ``PacedFrontTransport`` instead: a request reaches ``Front.handle`` after its request leg and
its answer reaches aiohttp after its response leg (both loop timers, so virtual time), and a watch's stream is
resumed on the loop when the store emits an event for it or when the stream's own timer (timeout, bookmark) is
due — no thread, no descriptor, the order decided by the loop alone. A watch's stream starts when the server
serves it; its head reaches aiohttp after the response leg, and each batch of events after the pacing's event
delay, if it has one, never before what is ahead of it. Exec, attach and port-forward (a 101 upgrade runs its
far end in a thread) are refused: the connection drops and the loop's exception handler hears why.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fakekube.inprocess.aiohttp_transport import FrontTransport
from fakekube.inprocess.paced import PacedWatch, Pacing
from fakekube.server.front import Front, HttpRequest, HttpResponse
from fakekube.server.messages import wire_head
from fakekube.server.watchstream import chunk


class PacedFrontTransport(FrontTransport):
    """``FrontTransport`` with each request's legs as loop timers and watch streams resumed by their watch."""

    def __init__(self, front: Front, protocol: asyncio.Protocol, loop: asyncio.AbstractEventLoop,
                 pacing: Pacing) -> None:
        super().__init__(front, protocol, loop)
        self._pacing = pacing
        self._in_flight = False  # a request sent whose answer has not arrived (aiohttp sends one at a time)
        self._watch: PacedWatch | None = None  # the running watch's stream

    def write(self, data: object) -> None:
        if self._closing:
            return
        self._buffer += bytes(data)  # type: ignore[call-overload]
        self._send_next()

    def _send_next(self) -> None:
        if self._in_flight or self._stream is not None or self._closing or not self._buffer:
            return
        request = self._take_request()
        if request is None:
            return
        self._in_flight = True
        before, after = self._pacing.legs(request)
        self._loop.call_later(before, self._serve, request, after)

    def _serve(self, request: HttpRequest, after: float) -> None:
        # Served even when the client gave up meanwhile (its timeout): the bytes were sent, and a real server
        # commits a request whose client is gone — one of the races worth seeing.
        response = self._front.handle(request)
        if response.stream is not None and not self._closing:
            # The stream starts now, as the server's does (its timeout and bookmarks count from here); its head
            # goes first on the way to the client, arriving after the response leg, and the events behind it.
            self._in_flight = False
            self._watch = PacedWatch(self._loop, self._pacing.event_delays(request))
            self._watch.at(self._loop.time() + after, self._feed, wire_head(response, response.close))
            self._start_stream(response)
            return
        self._loop.call_later(after, self._respond, response)

    def _respond(self, response: HttpResponse) -> None:
        self._in_flight = False
        if self._closing:
            response.cancel()  # a watch nobody reads stops
            response.finish()
            return
        if response.upgrade is not None:
            response.finish()
            self._loop.call_exception_handler({
                "message": "fakekube: exec, attach and port-forward are not simulated (their far end runs in a "
                           "thread); the connection was dropped",
                "transport": self})
            self._lost()
            return
        self._answer(response)
        self._send_next()

    def _start_stream(self, response: HttpResponse) -> None:
        assert response.stream is not None and self._watch is not None
        self._stream = (response, response.stream(None, self._watch.signal))
        self._pump_task = self._loop.create_task(self._pump())

    async def _pump_batches(self, response: HttpResponse, step: Callable[[], list[bytes] | float | bool]) -> None:
        assert self._watch is not None
        await self._watch.pump(step, lambda batch: self._feed(b"".join(chunk(data) for data in batch)),
                               lambda clean: self._end(response, clean), lambda: self._closing)

    def _end(self, response: HttpResponse, clean: bool) -> None:
        if self._closing:  # the client left while the end was on its way: close() ended the stream
            return
        self._stream_ended(response, clean)
        self._send_next()
