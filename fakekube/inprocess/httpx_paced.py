"""httpx-based async clients (kr8s on ``httpx``, lightkube on ``httpx2``) on an event loop that keeps virtual time
(``fakekube.sim.asyncioloop``), as ``aiohttp_paced`` paces aiohttp's.

The async transport (``httpx_transport``) answers a request at once and waits for a watch's next event in the
loop's executor. On a loop whose ``fakekube_pacing`` says how long requests take, ``paced_response`` answers
instead: the request reaches ``Front.handle`` after its request leg (a loop timer, so the store commits, and
stamps its audit entry and watch events, at that virtual instant) and its answer reaches the client after the
response leg. A request whose client gave up meanwhile (its read timeout, a cancelled task) is still served,
as a real server commits a request whose client is gone. A watch's stream starts when the server serves it;
its head reaches the client after the response leg and its batches behind it, each after the pacing's event
delay, if any (``PacedWatch``): the stream resumes on the loop when the store emits an event for it or its own
timer is due — no executor, no thread. Exec, attach and port-forward (a 101 upgrade runs its far end in a
thread) are refused: the client gets the dropped connection's error and the loop's exception handler hears why.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections import deque
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

from fakekube.inprocess.httpx_transport import front_request, read_timeout, timed_out, to_httpx
from fakekube.inprocess.paced import PacedWatch, Pacing, next_batch
from fakekube.server.front import Front, HttpResponse


class PacedBody:
    """A watch's body: the batches that reached the client, read on the loop; closing it ends the watch."""

    def __init__(self, hx: ModuleType, request: Any, answer: HttpResponse, watch: PacedWatch,
                 loop: asyncio.AbstractEventLoop) -> None:
        assert answer.stream is not None
        self._hx = hx
        self._request = request
        self._answer = answer
        self._batches = answer.stream(None, watch.signal)
        self._loop = loop
        self._arrived: deque[bytes] = deque()
        self._end: bool | None = None  # once the end arrived: whether the stream ended cleanly
        self._reader: asyncio.Future[None] | None = None  # the client's read, while it waits
        self._closed = False
        self._finished = False
        self._pump = loop.create_task(self._run(watch))  # referenced: a task may not be collected

    async def _run(self, watch: PacedWatch) -> None:
        try:
            await watch.pump(functools.partial(next_batch, self._batches), self._fed, self._ended,
                             lambda: self._closed)
        except asyncio.CancelledError:  # the loop's tasks cancelled before the client closed the body
            self._finish()
            raise
        finally:
            self._answer.cancel()
            with contextlib.suppress(ValueError):
                self._batches.close()

    def _fed(self, batch: list[bytes]) -> None:
        self._arrived.append(b"".join(batch))
        self._wake()

    def _ended(self, clean: bool) -> None:
        self._end = clean
        self._finish()
        self._wake()

    def _wake(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None and not reader.done():
            reader.set_result(None)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while not self._closed:
            if self._arrived:
                yield self._arrived.popleft()
            elif self._end is not None:
                if not self._end:  # the server dropped the connection mid-stream
                    raise self._hx.RemoteProtocolError("peer closed connection without sending complete message "
                                                       "body (incomplete chunked read)", request=self._request)
                return
            else:
                self._reader = self._loop.create_future()
                await self._reader

    def _finish(self) -> None:
        if not self._finished:  # once: the audit log writes the request's event then
            self._finished = True
            self._answer.finish()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._answer.cancel()  # the watch stops; its signal wakes the pump, which sees the body closed
        with contextlib.suppress(ValueError):  # the pump is not inside the generator while this runs
            self._batches.close()
        self._finish()
        self._wake()

    async def aclose(self) -> None:
        self.close()


@functools.cache
def _body_class(hx: ModuleType) -> type[PacedBody]:
    return type("PacedBody", (PacedBody, hx.AsyncByteStream), {})


async def paced_response(hx: ModuleType, front: Front, request: Any, pacing: Pacing) -> Any:
    """``request`` served by ``front`` after its request leg, its answer (an ``hx.Response``) back after its
    response leg, on the running loop's clock; a watch's body is a ``PacedBody``."""
    loop = asyncio.get_running_loop()
    served = front_request(request)
    before, after = pacing.legs(served)
    arrival: asyncio.Future[tuple[HttpResponse, PacedBody | None]] = loop.create_future()

    def serve() -> None:
        # Served even when the client gave up meanwhile: the bytes were sent, and a real server commits a
        # request whose client is gone — one of the races worth seeing.
        answer = front.handle(served)
        if answer.stream is not None and not arrival.done():
            # The stream starts now, as the server's does (its timeout and bookmarks count from here); its head
            # goes first on the way to the client, arriving after the response leg, and the events behind it.
            watch = PacedWatch(loop, pacing.event_delays(served))
            body = _body_class(hx)(hx, request, answer, watch, loop)
            watch.at(loop.time() + after, _arrive, arrival, answer, body)
        else:
            loop.call_later(after, _arrive, arrival, answer, None)

    loop.call_later(before, serve)
    timeout = read_timeout(request)
    # The client's read waits from its write (now) for the head: longer than its read timeout, it gives up.
    give_up = None if timeout is None else loop.call_later(timeout, _give_up, arrival, timed_out(hx, request))
    try:
        answer, body = await arrival
    finally:
        if give_up is not None:
            give_up.cancel()
    if answer.upgrade is not None:
        answer.finish()
        loop.call_exception_handler({
            "message": "fakekube: exec, attach and port-forward are not simulated (their far end runs in a "
                       "thread); the connection was dropped"})
        raise hx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
    return to_httpx(hx, request, answer, body, asynchronous=True)


def _arrive(arrival: asyncio.Future[tuple[HttpResponse, PacedBody | None]], answer: HttpResponse,
            body: PacedBody | None) -> None:
    if not arrival.done():
        arrival.set_result((answer, body))
    elif body is not None:  # nobody reads it: the watch stops
        body.close()
    else:
        answer.cancel()
        answer.finish()


def _give_up(arrival: asyncio.Future[Any], error: Exception) -> None:
    if not arrival.done():
        arrival.set_exception(error)
