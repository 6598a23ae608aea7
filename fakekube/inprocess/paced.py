"""What the in-process connections of aiohttp (``aiohttp_paced``) and httpx (``httpx_paced``) share on an event
loop that keeps virtual time (``fakekube.sim.asyncioloop``): the loop's ``Pacing`` (each request's legs), and a
watch's stream served on the loop (``PacedWatch``) — resumed when the store emits an event for it or when the
stream's own timer (timeout, bookmark) is due, with no thread and no descriptor, and its head, batches and end
handed to the client in order, each at its arrival time on the loop's clock.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Generator
from typing import Protocol

from fakekube.server.front import HttpRequest


class Pacing(Protocol):
    def legs(self, request: HttpRequest) -> tuple[float, float]:
        """Seconds from the client's write to the server's handling (the commit), and from there to the answer."""
        ...

    def event_delays(self, request: HttpRequest) -> Callable[[], float] | None:
        """For a watch request: each batch's delay from the store's emit to the client (None: no delay)."""
        ...


def pacing_of(loop: asyncio.AbstractEventLoop) -> Pacing | None:
    """The loop's pacing if it keeps virtual time (``VirtualEventLoop.fakekube_pacing``), else None."""
    return getattr(loop, "fakekube_pacing", None)


class StreamSignal:
    """A watch stream's pacer (``fakekube.server.watchstream.Pacer``): the loop's clock, and the watch's wakeup
    as a future the pump awaits. The store sets it inside the request that commits (a loop callback or another
    task of the simulation), so the pump resumes at the commit's virtual instant."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._set = False
        self._waiter: asyncio.Future[None] | None = None
        self._waited_until = 0.0

    def monotonic(self) -> float:
        # A wait that timed out ended at its end, even if the loop's timer ran a hair early (asyncio runs timers
        # due within its clock resolution) or the sum landed an ulp short: the stream would otherwise wait again
        # for that hair, on a clock that no longer moves, for ever.
        return max(self._loop.time(), self._waited_until)

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
        until = self._loop.time() + seconds
        timer = self._loop.call_at(until, _resolve, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None
        if not self._set:  # the time passed, not the watch
            self._waited_until = max(self._waited_until, until)


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


def next_batch(batches: Generator[list[bytes] | float, None, bool]) -> list[bytes] | float | bool:
    """The stream's next step: a batch of events, a wait (seconds, paced streams only), or its end (True: clean)."""
    try:
        return next(batches)
    except StopIteration as done:
        return bool(done.value)
    except ValueError:  # closed meanwhile (its generator was running in another thread)
        return False


class PacedWatch:
    """One watch stream served on ``loop``: ``signal`` is its pacer (pass it to ``HttpResponse.stream``);
    ``pump`` resumes the stream whenever it is due and hands its batches and end on, each ``delays()`` after the
    stream produced it (None: at once), never before what is ahead of it — the response's head included, set on
    its way with ``at``."""

    def __init__(self, loop: asyncio.AbstractEventLoop, delays: Callable[[], float] | None) -> None:
        self.signal = StreamSignal(loop)
        self._loop = loop
        self._delays = delays
        self._delivered = 0.0  # when the stream's last item reaches the client (nothing overtakes)
        self._on_the_way: deque[tuple[float, Callable[..., None], tuple[object, ...]]] = deque()

    async def pump(self, step: Callable[[], list[bytes] | float | bool], feed: Callable[[list[bytes]], None],
                   end: Callable[[bool], None], ended: Callable[[], bool]) -> None:
        """Resume the stream (``step``) until it ends or ``ended()`` says the client left; ``feed`` gets each batch
        and ``end`` the stream's end (True: clean) when they reach the client."""
        while not ended():
            batch = step()
            if isinstance(batch, float):  # the stream would wait: for its watch, or this long at most
                await self.signal.wait(batch)
                continue
            if isinstance(batch, bool):
                self._deliver(end, batch)
                return
            self._deliver(feed, batch)

    def _deliver(self, callback: Callable[..., None], *args: object) -> None:
        now = self._loop.time()
        at = now + self._delays() if self._delays is not None else now
        if at <= now and not self._on_the_way:
            callback(*args)
        else:
            self.at(at, callback, *args)

    def at(self, when: float, callback: Callable[..., None], *args: object) -> None:
        """Call ``callback(*args)`` at ``when``, or after what is already on its way if that arrives later."""
        # A queue of its own: the loop's timers due at one instant need not run in the order they were set.
        self._delivered = max(self._delivered, when)
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
