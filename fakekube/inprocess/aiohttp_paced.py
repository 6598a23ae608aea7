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
from collections import deque
from collections.abc import Callable
from typing import Protocol

from fakekube.inprocess.aiohttp_transport import FrontTransport
from fakekube.server.front import Front, HttpRequest, HttpResponse
from fakekube.server.messages import wire_head
from fakekube.server.watchstream import chunk


class Pacing(Protocol):
    def legs(self, request: HttpRequest) -> tuple[float, float]:
        """Seconds from the client's write to the server's handling (the commit), and from there to the answer."""
        ...

    def event_delays(self, request: HttpRequest) -> Callable[[], float] | None:
        """For a watch request: each batch's delay from the store's emit to the client (None: no delay)."""
        ...


class StreamSignal:
    """A watch stream's pacer (``fakekube.server.watchstream.Pacer``): the loop's clock, and the watch's wakeup
    as a future the pump awaits. The store sets it inside the request that commits (a loop callback or another
    task of the simulation), so the pump resumes at the commit's virtual instant."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._set = False
        self._waiter: asyncio.Future[None] | None = None

    def monotonic(self) -> float:
        return self._loop.time()

    def set(self) -> None:
        self._set = True
        waiter = self._waiter
        # Closed: the front stopping its watches after the loop was closed (mock_kubernetes's exit) wakes nothing.
        if waiter is not None and not waiter.done() and not self._loop.is_closed():
            waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    def close(self) -> None:
        self.set()

    async def wait(self, seconds: float) -> None:
        """Until set, or ``seconds`` passed on the loop's clock."""
        if self._set:
            return
        waiter = self._waiter = self._loop.create_future()
        timer = self._loop.call_later(seconds, _resolve, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class PacedFrontTransport(FrontTransport):
    """``FrontTransport`` with each request's legs as loop timers and watch streams resumed by their watch."""

    def __init__(self, front: Front, protocol: asyncio.Protocol, loop: asyncio.AbstractEventLoop,
                 pacing: Pacing) -> None:
        super().__init__(front, protocol, loop)
        self._pacing = pacing
        self._in_flight = False  # a request sent whose answer has not arrived (aiohttp sends one at a time)
        self._signal: StreamSignal | None = None
        self._delays: Callable[[], float] | None = None  # the running watch's event delays
        self._delivered = 0.0  # when the stream's last batch reaches the client (batches never overtake)
        self._on_the_way: deque[tuple[float, Callable[..., None], tuple[object, ...]]] = deque()

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
            self._delays = self._pacing.event_delays(request)
            self._on_the_way_at(self._loop.time() + after, self._feed, wire_head(response, response.close))
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
        assert response.stream is not None
        self._signal = StreamSignal(self._loop)
        self._stream = (response, response.stream(None, self._signal))
        self._pump_task = self._loop.create_task(self._pump())

    async def _pump_batches(self, response: HttpResponse, step: Callable[[], list[bytes] | bool]) -> None:
        signal = self._signal
        assert signal is not None
        while not self._closing:
            batch: list[bytes] | bool | float = step()
            if isinstance(batch, float):  # the stream would wait: for its watch, or this long at most
                await signal.wait(batch)
                continue
            if isinstance(batch, bool):
                self._deliver(self._end, response, batch)
                return
            self._deliver(self._feed, b"".join(chunk(data) for data in batch))

    def _deliver(self, callback: Callable[..., None], *args: object) -> None:
        """What the stream sends now reaches the client after the event delay, never before what is ahead of it."""
        now = self._loop.time()
        at = now + self._delays() if self._delays is not None else now
        if at <= now and not self._on_the_way:
            callback(*args)
        else:
            self._on_the_way_at(at, callback, *args)

    def _on_the_way_at(self, at: float, callback: Callable[..., None], *args: object) -> None:
        # A queue of its own: the loop's timers due at one instant need not run in the order they were set.
        self._delivered = max(self._delivered, at)
        self._on_the_way.append((self._delivered, callback, args))
        if len(self._on_the_way) == 1:
            self._loop.call_at(self._delivered, self._arrive)

    def _arrive(self) -> None:
        queue = self._on_the_way
        while queue and queue[0][0] <= self._loop.time():
            _, callback, args = queue.popleft()
            callback(*args)
        if queue:
            self._loop.call_at(queue[0][0], self._arrive)

    def _end(self, response: HttpResponse, clean: bool) -> None:
        self._delays = None
        if self._closing:  # the client left while the end was on its way: close() ended the stream
            return
        self._stream_ended(response, clean)
        self._send_next()
